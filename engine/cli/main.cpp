// shardcalc CLI: a thin shell over io/api. Exit 0 on success, 2 on invalid input or usage,
// with the JSON error on stderr; with --check, 3 when the plan is tight and 4 when it does not fit,
// so scripts need not parse the report.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "io/api.h"
#include "io/presets.h"
#include "io/text_format.h"
#include "version.h"

namespace {

const char* kUsage =
    "usage: shardcalc estimate FILE|- [--format json|table|markdown|csv] [--check]\n"
    "       shardcalc kernels FILE|- [--stage N] [--format json|table|markdown|csv]\n"
    "       shardcalc search FILE|- [--format json|table|markdown|csv]\n"
    "       shardcalc import FILE|- [--format json|scenario]\n"
    "       shardcalc presets [--format table|json]\n"
    "       shardcalc --version\n";

int fail(const std::string& path, const std::string& message) {
    std::cerr << shardcalc::to_text(shardcalc::error_value(path, message)) << "\n";  // user text may be bad UTF-8
    return 2;
}

bool read_input(const std::string& source, std::string& out) {
    if (source == "-") {
        out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    std::ifstream in(source, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return true;
}

// `shardcalc import`: a Hugging Face config.json as the engine reads it (json), or as a scenario for
// `shardcalc estimate` (scenario). A scenario cannot carry the notes and the keys not understood, so with
// --format scenario they go to stderr and the scenario alone to stdout, ready to pipe on.
int import_config(const std::string& input, std::string format, bool check) {
    if (input.empty()) return fail("", "import needs a config.json file or - for stdin");
    if (format.empty()) format = "json";
    if (format != "json" && format != "scenario") return fail("", "--format for import: allowed: json|scenario");
    if (check) return fail("", "--check belongs to estimate");
    std::string text;
    if (!read_input(input, text)) return fail("", "cannot read config file " + input);
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

// The text writers of one answer.
struct Writers {
    std::string (*table)(const nlohmann::json&);
    std::string (*markdown)(const nlohmann::json&);
    std::string (*csv)(const nlohmann::json&);
};

// Prints the answer's `key` object in `format` and returns it; an error answer goes to stderr and null comes back.
nlohmann::json print_answer(const std::string& answer, const char* key, const std::string& format, Writers w) {
    nlohmann::json result = nlohmann::json::parse(answer);
    if (!result["ok"].get<bool>()) {
        std::cerr << shardcalc::to_text(result) << "\n";
        return nullptr;
    }
    const nlohmann::json& j = result[key];
    if (format == "json") std::cout << j.dump(2) << "\n";
    else if (format == "table") std::cout << w.table(j);
    else if (format == "markdown") std::cout << w.markdown(j);
    else std::cout << w.csv(j);
    return std::move(result[key]);
}

}  // namespace

int main(int argc, char** argv) {
    std::string command, input, format, stage_arg;
    bool check = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--version") {
            std::cout << "shardcalc " << shardcalc::kEngineVersion << "\n";
            return 0;
        } else if (arg == "--help" || arg == "-h") {
            std::cout << kUsage;
            return 0;
        } else if (arg == "--format" && i + 1 < argc) {
            format = argv[++i];
        } else if (arg == "--stage" && i + 1 < argc) {
            stage_arg = argv[++i];
        } else if (arg == "--check") {
            check = true;
        } else if (arg.rfind("--format=", 0) == 0) {
            format = arg.substr(9);
        } else if (command.empty()) {
            command = arg;
        } else if (input.empty() && (command == "estimate" || command == "search" || command == "import" || command == "kernels")) {
            input = arg;
        } else {
            return fail("", "unexpected argument: " + arg + "; see shardcalc --help");
        }
    }

    if (command == "presets") {
        if (format.empty() || format == "table") std::cout << shardcalc::format_presets_table(shardcalc::all_presets());
        else if (format == "json") std::cout << shardcalc::all_presets().dump(2) << "\n";
        else return fail("", "--format for presets: allowed: table|json");
        return 0;
    }
    if (command == "import") return import_config(input, format, check);
    if (command.empty()) return fail("", "missing command; see shardcalc --help");
    if (command != "estimate" && command != "search" && command != "kernels")
        return fail("", "unknown command: " + command + "; see shardcalc --help");
    if (input.empty()) return fail("", command + " needs a scenario file or - for stdin");
    if (format.empty()) format = "table";
    if (format != "json" && format != "table" && format != "markdown" && format != "csv")
        return fail("", "--format: allowed: json|table|markdown|csv");
    if (check && command != "estimate") return fail("", "--check belongs to estimate");
    if (!stage_arg.empty() && command != "kernels") return fail("", "--stage belongs to kernels");
    int64_t stage = -1;
    if (!stage_arg.empty()) {
        // A pipeline rank: digits only (std::stoll would take "1x" or " 1").
        if (stage_arg.size() > 9 || stage_arg.find_first_not_of("0123456789") != std::string::npos)
            return fail("/stage", "--stage: a pipeline rank, an integer from 0 to pp - 1");
        stage = std::stoll(stage_arg);
    }

    std::string text;
    if (!read_input(input, text)) return fail("", "cannot read scenario file " + input);
    if (command == "kernels")
        return print_answer(shardcalc::kernels_scenario_text(text, stage), "kernels", format,
                            {shardcalc::format_kernels_table, shardcalc::format_kernels_markdown, shardcalc::format_kernels_csv})
                       .is_null() ? 2 : 0;
    if (command == "search")
        return print_answer(shardcalc::search_scenario_text(text), "search", format,
                            {shardcalc::format_search_table, shardcalc::format_search_markdown, shardcalc::format_search_csv})
                       .is_null() ? 2 : 0;
    const nlohmann::json report = print_answer(shardcalc::evaluate_scenario_text(text), "report", format,
                                               {shardcalc::format_table, shardcalc::format_markdown, shardcalc::format_csv});
    if (report.is_null()) return 2;
    if (!check) return 0;
    const std::string verdict = report["memory"]["verdict"]["verdict"].get<std::string>();
    return verdict == "fits" ? 0 : verdict == "tight" ? 3 : 4;
}
