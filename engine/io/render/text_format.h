#pragma once
// Text of the two answers that are JSON documents themselves: the presets (files on disk) and `shardcalc export`'s
// launch lines. Every other answer is written from the engine's result (io/render/answer_text.h).
#include <nlohmann/json.hpp>
#include <string>

namespace shardcalc {

// The presets (io/presets.h all_presets(); io/render/presets_text.cpp).
std::string format_presets_table(const nlohmann::json& presets);

// Launch commands as `shardcalc export` answers them ([{"tool", "lines"}]), as io/render/answer_text.h launch_text
// writes them (io/render/search_text.cpp).
std::string format_launch_text(const nlohmann::json& launch, const std::string& fence = "");

}  // namespace shardcalc
