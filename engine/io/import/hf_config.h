#pragma once
// A Hugging Face config.json read as the scenario's model fields: one copy of the mapping for the CLI
// (`shardcalc import`) and the page (its worker asks the engine). A config is imported only when the
// engine's model means what the config means: a family the engine cannot represent (two norms in a parallel block,
// encoder-decoder, partial biases, bidirectional attention in a decoder, sliding-window layers in an order the
// engine cannot place, ...) is refused with the reason, at the key that carries it, rather than read as a
// different model.
#include <nlohmann/json.hpp>
#include <vector>

#include "io/codec/json_text.h"

namespace shardcalc {

// {"ok": true, "family": "llama", "label": "Mistral", "model": {<scenario model fields>},
//  "unknown": ["key" or "key=value" that no rule reads], "notes": ["what the engine counts differently"]}
// or the API's error value, each problem at the config key (a JSON pointer such as "/kv_lora_rank", or
// "/text_config/moe_layers" inside a Llama 4 or multimodal Gemma 3 config, whose language model sits under
// text_config).
nlohmann::json import_hf_config(const nlohmann::json& config);
// The same for a config read with parse_json_text(text, out_of_range): each number beyond double range is
// refused by name, unless it sits under a key the import ignores.
nlohmann::json import_hf_config(const nlohmann::json& config, const std::vector<OutOfRangeNumber>& out_of_range);

}  // namespace shardcalc
