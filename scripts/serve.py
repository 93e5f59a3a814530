#!/usr/bin/env python3
"""Serves web/dist on 127.0.0.1 (scripts/run.sh): a static file server that also sends each page's
Content-Security-Policy as a header (the policy of its <meta http-equiv> element; index.html's for
every other file, so that the engine's worker runs under it too).

    python3 scripts/serve.py [PORT] [DIRECTORY]     # defaults: 8000 and web/dist
"""
import functools
import http.server
import pathlib
import re
import sys

META = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def policy_of(path):
    try:
        match = META.search(pathlib.Path(path).read_bytes())
    except OSError:
        return None
    return match.group(1).decode() if match else None


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm'}

    def end_headers(self):
        path = self.translate_path(self.path)
        if pathlib.Path(path).is_dir():
            path = str(pathlib.Path(path) / 'index.html')
        policy = policy_of(path) if path.endswith('.html') else policy_of(pathlib.Path(self.directory) / 'index.html')
        if policy:
            self.send_header('Content-Security-Policy', policy)
        super().end_headers()


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    directory = sys.argv[2] if len(sys.argv) > 2 else str(pathlib.Path(__file__).resolve().parent.parent / 'web' / 'dist')
    server = http.server.ThreadingHTTPServer(('127.0.0.1', port), functools.partial(Handler, directory=directory))
    print(f'serving {directory} at http://127.0.0.1:{server.server_port}/', flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == '__main__':
    main()
