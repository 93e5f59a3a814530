#pragma once
// Human-readable renderings of the JSON answers other than the report (whose are io/render/report_text.h): the
// presets, the plan search, launch commands, serving, RL and the kernel table.
#include <nlohmann/json.hpp>
#include <string>

namespace shardcalc {

// The presets (io/presets.h all_presets(); io/render/presets_text.cpp).
std::string format_presets_table(const nlohmann::json& presets);

// The plan search's result (the "search" object; io/render/search_text.cpp).
std::string format_search_table(const nlohmann::json& search);
std::string format_search_markdown(const nlohmann::json& search);
std::string format_search_csv(const nlohmann::json& search);
// Launch commands ([{"tool", "lines"}], a search row's or `shardcalc export`'s): each tool's name, then its lines
// indented, each command between two `fence` lines (e.g. "```\n" for Markdown).
std::string format_launch_text(const nlohmann::json& launch, const std::string& fence = "");

// The serving estimate (the "serving" object of `shardcalc serve`; io/render/serving_text.cpp).
std::string format_serving_table(const nlohmann::json& serving);



}  // namespace shardcalc
