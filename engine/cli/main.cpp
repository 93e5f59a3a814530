// shardcalc CLI: a thin shell over io/api. Exit 0 on success, 2 on invalid input or usage,
// with the JSON error on stderr; with --check, 3 when the plan is tight and 4 when it does not fit,
// so scripts need not parse the report. `shardcalc help [COMMAND]` and `COMMAND --help` print the usage.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "core/edit_distance.h"
#include "io/api.h"
#include "io/presets.h"
#include "io/contract/reconcile_io.h"
#include "io/contract/scenario_schema.h"
#include "io/render/text_format.h"
#include "memory/allocator.h"
#include "version.h"

namespace {

using namespace shardcalc::cli;

const Command* find_command(const std::string& name) {
    for (const Command& c : kCommands)
        if (name == c.name) return &c;
    return nullptr;
}

std::string general_usage() {
    std::string out = "shardcalc " + std::string(shardcalc::kEngineVersion) +
                      ": memory and step time of transformer training, estimated from a scenario (JSON)\n\nusage:\n";
    for (const Command& c : kCommands) out += "  shardcalc " + std::string(c.summary) + "\n";
    out += "  shardcalc help [COMMAND]    (or shardcalc COMMAND --help): a command's options\n"
           "  shardcalc --version\n"
           "\n"
           "FILE|-: a file, or - for standard input. --format X and --format=X are the same.\n"
           "\n"
           "exit status: 0 ok; 2 invalid input or usage (the error as one line of JSON on stderr,\n"
           "  {\"ok\":false,\"error\":{\"path\":\"/parallel/tp\",\"message\":\"...\"}}); with estimate --check:\n"
           "  3 the plan is tight, 4 it does not fit\n"
           "\n"
           "docs: docs/cli.md, docs/scenario.md (scenario, report, errors, CLI), docs/search.md\n";
    return out;
}

std::string command_usage(const Command& c) {
    std::string help = c.help;
    if (const auto at = help.find("%EXIT%"); at != std::string::npos) help.replace(at, 6, kExitCodes);
    return "usage: shardcalc " + std::string(c.summary) + "\n\n" + help;
}

int fail(const std::string& path, const std::string& message) {
    std::cerr << shardcalc::to_text(shardcalc::error_value(path, message)) << "\n";  // user text may be bad UTF-8
    return 2;
}

int unknown_command(const std::string& name) {
    std::string names, close;
    for (const Command& c : kCommands) {
        names += std::string(names.empty() ? "" : ", ") + c.name;
        if (close.empty() && name.size() < 64 && shardcalc::edit_distance(name, c.name) <= 2) close = c.name;
    }
    return fail("", "unknown command: " + name + "; " + (close.empty() ? "" : "did you mean " + close + "? ") +
                        "commands: " + names + ", help; see shardcalc --help");
}

// The input as text; an error message naming the file (or stdin) when it cannot be read.
bool read_input(const std::string& source, const char* what, std::string& out, std::string& error) {
    const bool stdin_input = source == "-";
    const std::string name = stdin_input ? "standard input" : source;
    std::error_code ec;
    if (!stdin_input && std::filesystem::is_directory(source, ec)) {
        error = source + " is a directory, not a " + what;
        return false;
    }
    errno = 0;
    std::FILE* f = stdin_input ? stdin : std::fopen(source.c_str(), "rb");
    if (!f) {
        error = "cannot read " + name + ": " + std::strerror(errno);
        return false;
    }
    char buffer[65536];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) out.append(buffer, n);
    const int read_errno = std::ferror(f) ? errno : 0;
    if (!stdin_input) std::fclose(f);
    if (read_errno != 0) {
        error = read_errno == EISDIR ? name + " is a directory, not a " + what
                                     : "cannot read " + name + ": " + std::strerror(read_errno);
        return false;
    }
    return true;
}

// `shardcalc import`: a Hugging Face config.json as the engine reads it (json), or as a scenario for
// `shardcalc estimate` (scenario). A scenario cannot carry the notes and the keys not understood, so with
// --format scenario they go to stderr and the scenario alone to stdout, ready to pipe on.
int import_config(const std::string& input, std::string format) {
    if (input.empty()) return fail("", "import needs a config.json file or - for stdin");
    if (format.empty()) format = "json";
    if (format != "json" && format != "scenario") return fail("", "--format for import: allowed: json|scenario");
    std::string text, error;
    if (!read_input(input, "config.json file", text, error)) return fail("", error);
    const nlohmann::json result = nlohmann::json::parse(shardcalc::import_config_text(text));
    if (!result["ok"].get<bool>()) {
        std::cerr << shardcalc::to_text(result) << "\n";
        return 2;
    }
    const auto replace = nlohmann::json::error_handler_t::replace;
    if (format == "json") {
        std::cout << result.dump(2, ' ', false, replace) << "\n";
        return 0;
    }
    std::cout << nlohmann::json{{"model", result["model"]}}.dump(2, ' ', false, replace) << "\n";
    for (const auto& note : result["notes"]) std::cerr << "shardcalc import: note: " << note.get<std::string>() << "\n";
    std::string unknown;
    for (const auto& key : result["unknown"]) unknown += (unknown.empty() ? "" : ", ") + key.get<std::string>();
    if (!unknown.empty()) std::cerr << "shardcalc import: not understood: " << unknown << "\n";
    return 0;
}

// `shardcalc export`: the launch lines of the scenario's own plan (io/api.h launch_scenario_text).
int export_launch(const std::string& text, const std::string& tool, const std::string& format) {
    nlohmann::json result = nlohmann::json::parse(shardcalc::launch_scenario_text(text, tool.empty() ? "all" : tool));
    if (!result["ok"].get<bool>()) {
        std::cerr << shardcalc::to_text(result) << "\n";
        return 2;
    }
    result.erase("ok");
    if (format == "json") std::cout << result.dump(2) << "\n";
    else std::cout << shardcalc::format_launch_text(result["launch"]);
    return 0;
}

// Prints a command's answer for people, written by the engine from its result (io/api.h text_answer), and returns the
// answer; an error answer goes to stderr and null comes back.
nlohmann::json print_text(const std::string& scenario, const shardcalc::TextRequest& request) {
    nlohmann::json answer = nlohmann::json::parse(shardcalc::text_answer(scenario, request));
    if (!answer["ok"].get<bool>()) {
        std::cerr << shardcalc::to_text(answer) << "\n";
        return nullptr;
    }
    std::cout << answer["text"].get<std::string>();
    return answer;
}

// Prints the answer's `key` object as JSON and returns it; an error answer goes to stderr and null comes back.
nlohmann::json print_json(const std::string& answer, const char* key) {
    nlohmann::json result = nlohmann::json::parse(answer);
    if (!result["ok"].get<bool>()) {
        std::cerr << shardcalc::to_text(result) << "\n";
        return nullptr;
    }
    std::cout << result[key].dump(2) << "\n";
    return std::move(result[key]);
}

struct Options {
    std::string command, input, log, topic, format, stage, tool, unit, threads;
    bool check = false, help = false, format_given = false, stage_given = false, tool_given = false, unit_given = false,
         threads_given = false;
    std::string usage_error;  // the first, reported unless --help asks for the usage instead
};

Options parse(int argc, char** argv) {
    Options o;
    auto usage_error = [&](const std::string& message) {
        if (o.usage_error.empty()) o.usage_error = message;
    };
    // An option with a value: "--name value" or "--name=value".
    auto valued = [&](const std::string& arg, int& i, const char* name, std::string& value, bool& given) {
        const std::string eq = std::string(name) + "=";
        if (arg == name) {
            if (i + 1 < argc) value = argv[++i];
            else usage_error(std::string(name) + " needs a value; see shardcalc --help");
        } else if (arg.rfind(eq, 0) == 0) {
            value = arg.substr(eq.size());
        } else {
            return false;
        }
        given = true;
        return true;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") o.help = true;
        else if (valued(arg, i, "--format", o.format, o.format_given)) continue;
        else if (valued(arg, i, "--stage", o.stage, o.stage_given)) continue;
        else if (valued(arg, i, "--tool", o.tool, o.tool_given)) continue;
        else if (valued(arg, i, "--unit", o.unit, o.unit_given)) continue;
        else if (valued(arg, i, "--threads", o.threads, o.threads_given)) continue;
        else if (arg == "--check") o.check = true;
        else if (arg.size() > 1 && arg[0] == '-' && !o.command.empty())
            usage_error("unknown option: " + arg + "; see shardcalc " + o.command + " --help");
        else if (arg.size() > 1 && arg[0] == '-') usage_error("unknown option: " + arg + "; see shardcalc --help");
        else if (o.command.empty()) o.command = arg;
        else if (o.command == "help" && o.topic.empty()) o.topic = arg;
        else if (o.input.empty() && o.command != "presets" && o.command != "schema" && o.command != "help") o.input = arg;
        else if ((o.command == "reconcile" || o.command == "serve" || o.command == "rl") && o.log.empty()) o.log = arg;
        else usage_error("unexpected argument: " + arg + "; see shardcalc --help");
    }
    return o;
}

// The threads a search runs on: --threads, or the machine's cores (at most 8).
bool threads_of(const Options& o, int& count) {
    if (!o.threads_given) {
        count = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
        return true;
    }
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(o.threads.c_str(), &end, 10);
    if (o.threads.empty() || *end != '\0' || errno != 0 || n < 1 || n > 64) return false;
    count = static_cast<int>(n);
    return true;
}

// The engine's tasks side by side, a thread each (core/workers.h).
void run_in_threads(const std::vector<std::function<void()>>& tasks) {
    std::vector<std::thread> threads;
    for (size_t i = 1; i < tasks.size(); ++i) threads.emplace_back(tasks[i]);
    if (!tasks.empty()) tasks[0]();
    for (auto& t : threads) t.join();
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--version") {
            std::cout << "shardcalc " << shardcalc::kEngineVersion << "\n";
            return 0;
        }
    if (argc < 2) {  // a bare `shardcalc`: the usage, as a usage error
        std::cerr << general_usage();
        return 2;
    }
    const Options o = parse(argc, argv);

    // Help: `shardcalc --help`, `shardcalc help`, `shardcalc help COMMAND`, `shardcalc COMMAND --help`.
    if (o.command == "help" || o.help) {
        const std::string topic = o.command == "help" ? o.topic : o.command;
        if (topic.empty() || topic == "help") {
            std::cout << general_usage();
            return 0;
        }
        const Command* c = find_command(topic);
        if (!c) return unknown_command(topic);
        std::cout << command_usage(*c);
        return 0;
    }
    if (o.command.empty()) return fail("", o.usage_error.empty() ? "missing command; see shardcalc --help" : o.usage_error);
    if (!find_command(o.command)) return unknown_command(o.command);
    if (!o.usage_error.empty()) return fail("", o.usage_error);
    const std::string& command = o.command;
    std::string format = o.format;
    if (o.check && command != "estimate") return fail("", "--check belongs to estimate");
    if (o.stage_given && command != "kernels") return fail("", "--stage belongs to kernels");
    if (o.tool_given && command != "export") return fail("", "--tool belongs to export");
    if (o.threads_given && command != "search") return fail("", "--threads belongs to search");
    // The Markdown's amounts in GiB or GB, as the page's unit menu; the table is in GiB and the CSV in bytes.
    if (o.unit_given && (command != "estimate" || o.format != "markdown"))
        return fail("", "--unit belongs to estimate --format markdown (the table is in GiB, the CSV in bytes)");
    if (o.unit_given && o.unit != "GiB" && o.unit != "GB") return fail("/unit", "--unit: allowed: GiB|GB");

    if (command == "schema") {
        if (!format.empty() && format != "json") return fail("", "--format for schema: allowed: json");
        std::cout << shardcalc::schema_to_json().dump(2) << "\n";
        return 0;
    }
    if (command == "presets") {
        if (format.empty() || format == "table") std::cout << shardcalc::format_presets_table(shardcalc::all_presets());
        else if (format == "json") std::cout << shardcalc::all_presets().dump(2) << "\n";
        else return fail("", "--format for presets: allowed: table|json");
        return 0;
    }
    if (command == "import") return import_config(o.input, format);
    if (o.input.empty()) return fail("", command + " needs a scenario file or - for stdin");
    if (command == "export") {
        if (format.empty()) format = "text";
        if (format != "text" && format != "json") return fail("", "--format for export: allowed: text|json");
    } else if (command == "serve" || command == "rl") {
        if (format.empty()) format = "table";
        if (format != "table" && format != "json") return fail("", "--format for " + command + ": allowed: table|json");
    } else if (command == "reconcile") {
        if (format.empty()) format = "table";
        if (format != "table" && format != "json") return fail("", "--format for reconcile: allowed: table|json");
        if (o.log.empty()) return fail("", "reconcile needs the run's scenario and its log file; see shardcalc reconcile --help");
    } else {
        if (format.empty()) format = "table";
        if (format != "json" && format != "table" && format != "markdown" && format != "csv")
            return fail("", "--format: allowed: json|table|markdown|csv");
    }
    int64_t stage = -1;
    if (o.stage_given) {
        // A pipeline rank: digits only (std::stoll would take "1x" or " 1").
        if (o.stage.empty() || o.stage.size() > 9 || o.stage.find_first_not_of("0123456789") != std::string::npos)
            return fail("/stage", "--stage: a pipeline rank, an integer from 0 to pp - 1");
        stage = std::stoll(o.stage);
    }

    std::string text, error;
    if (!read_input(o.input, "scenario file", text, error)) return fail("", error);
    if (command == "export") return export_launch(text, o.tool, format);
    // A run's log set beside the scenario's estimate: `reconcile`, `serve` with a vLLM log and `rl` with verl's.
    std::optional<std::string> log;
    if (!o.log.empty() && !read_input(o.log, "log file", log.emplace(), error)) return fail("/log", error);
    // The JSON answer (the API's own), or the engine's text of it (io/api.h text_answer).
    const bool json = format == "json";
    shardcalc::Workers workers;
    if (command == "search") {
        if (!threads_of(o, workers.count)) return fail("/threads", "--threads: an integer from 1 to 64");
        workers.run = run_in_threads;
    }
    const auto answer = [&](const std::string& json_answer, const char* key) {
        if (json) return print_json(json_answer, key).is_null() ? 2 : 0;
        return print_text(text, {command, format, "GiB", stage, log, workers}).is_null() ? 2 : 0;
    };
    const std::string log_text = log.value_or("");
    if (command == "reconcile") return answer(json ? shardcalc::reconcile_text(text, log_text) : "", "reconciliation");
    if (command == "kernels") return answer(json ? shardcalc::kernels_scenario_text(text, stage) : "", "kernels");
    if (command == "serve" && log)
        return answer(json ? shardcalc::serve_reconcile_text(text, log_text) : "", "serving_reconciliation");
    if (command == "serve") return answer(json ? shardcalc::serve_scenario_text(text) : "", "serving");
    if (command == "rl" && log) return answer(json ? shardcalc::rl_reconcile_text(text, log_text) : "", "rl_reconciliation");
    if (command == "rl") return answer(json ? shardcalc::rl_scenario_text(text) : "", "rl");
    if (command == "search") return answer(json ? shardcalc::search_scenario_text(text, workers) : "", "search");
    std::string verdict;
    if (format == "json") {
        const nlohmann::json report = print_json(shardcalc::evaluate_scenario_text(text), "report");
        if (report.is_null()) return 2;
        verdict = report["memory"]["verdict"]["verdict"].get<std::string>();
    } else {
        const nlohmann::json printed = print_text(text, {"estimate", format, o.unit_given ? o.unit : "GiB"});
        if (printed.is_null()) return 2;
        verdict = printed["verdict"].get<std::string>();
    }
    if (!o.check) return 0;
    using shardcalc::Verdict;
    return verdict == verdict_name(Verdict::Fits) ? 0 : verdict == verdict_name(Verdict::Tight) ? 3 : 4;
}
