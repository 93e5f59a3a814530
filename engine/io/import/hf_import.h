#pragma once
// Internal to the Hugging Face importer (io/hf_*.cpp): what one import gathers, how a family reads its keys, and the
// functions its files share. The public entry point is io/import/hf_config.h.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/api.h"
#include "io/codec/json_text.h"
#include "io/contract/scenario_json.h"
#include "scenario/resolve.h"

namespace shardcalc::hf {

using nlohmann::json;

// Words for messages.
std::string shorten(const std::string& text);
std::string quote(const json& value);
std::string pointer(const std::string& key);
std::string top_key(const std::string& path);
std::string normalized(const std::string& type);
const json* find(const json& config, const char* key);
std::optional<int64_t> count_of(const json& value);
json import(const json& config, const std::vector<OutOfRangeNumber>& out_of_range);

// ---- What one import gathers -------------------------------------------------------------------

struct Import {
    json model = json::object();
    std::map<std::string, std::string> source;  // model field -> the config key it was read from
    std::vector<std::string> unknown;           // "key", or "key=value" for a value no rule understands
    std::vector<std::string> notes;             // where the engine counts something differently, and how much
    Problems problems;                          // what stops the import
    // Where the family's keys sit: "" for most configs, "/text_config" for a Llama 4 or multimodal Gemma 3 config,
    // whose language model's fields are one level down (Llama4Config.text_config, Gemma3Config.text_config).
    // Problems and listed keys say the full place.
    std::string at;
    // The model type as the importer's table spells it ("mistral", "llama", ...): families that several types
    // share read a few keys by type (a Mistral config's sliding_window; a Llama config has none).
    std::string type;

    std::string path(const std::string& key) const { return at + pointer(key); }
    std::string name(const std::string& key) const { return (at.empty() ? "" : at.substr(1) + ".") + shorten(key); }
    // Two keys that transformers reads as one setting (an attribute_map alias, such as Qwen3-MoE's num_experts and
    // num_local_experts) must agree: neither silently wins.
    void set(const char* field, json value, const std::string& key) {
        if (const auto it = source.find(field); it != source.end() && it->second != key && model[field] != value) {
            refuse(key, quote(value) + " while " + it->second + " is " + quote(model[field]) +
                            ": transformers reads both as one setting (model." + field + ")");
            return;
        }
        model[field] = std::move(value);
        source[field] = key;
    }
    void refuse(const std::string& key, std::string why) { problems.add(path(key), std::move(why)); }
    void not_understood(const std::string& key, const json& value) { unknown.push_back(name(key) + "=" + quote(value)); }
};

// How a family reads one key. With `field`, the value goes to that model field as written, and the scenario's
// own reader then checks its type and range (check_model), so a config cannot bring a value a scenario could
// not. Otherwise `read` decides.
using Read = void (*)(const std::string& key, const json& value, Import& in);
struct Rule {
    const char* key;
    const char* field;
    Read read;
};

// ---- Families: one entry each in io/import/hf_families.json -------------------------------------------------

using Finish = void (*)(const json& config, Import& in);
struct Family {
    const char* id;
    json fixed;                // what every model of the family is, whatever the config says
    std::vector<Rule> rules;   // the keys it reads
    Finish finish;             // decisions over several keys; may be null
};

// model_type -> the family that reads it, and the name a message gives the model. `nested`: the config key that holds
// the family's keys, for a config that wraps a language model with other parts (Llama4Config, Gemma3Config:
// text_config beside vision_config).
struct ModelType {
    const char* type;
    const char* label;
    const char* family;
    const char* nested = nullptr;
};

// ---- Sliding windows: model.sliding_window and model.global_every ------------------------------------------
// The engine's local layers attend to the last sliding_window tokens; with global_every = n the layers i with
// (i + 1) % n == 0 attend globally (the last of each run of n), with 0 every layer is local (engine/graph/build.cpp,
// is_local_layer). Each family's code says which of its layers attend through the window; that list is read as
// the engine's pattern when it is one, and refused at the key that made it otherwise.

// One flag per layer: true where the layer attends through the window.
using LocalLayers = std::vector<bool>;

std::optional<int64_t> field_count(const Import& in, const char* field);
std::string key_of(const Import& in, const char* field, const char* fallback);
void later(const std::string&, const json&, Import&);
void same_weights(const std::string&, const json&, Import&);
void read_gated_act(const std::string& key, const json& value, Import& in);
void read_plain_act(const std::string& key, const json& value, Import& in);
void read_false(const std::string& key, const json& value, Import& in);
bool must_be_boolean(const std::string& key, const json& value, Import& in);
void read_absolute(const std::string& key, const json& value, Import& in);
void read_not_decoder(const std::string& key, const json& value, Import& in);
void read_one_group(const std::string& key, const json& value, Import& in);
bool flag(const json& config, const char* key, bool fallback, Import& in);
void read_biases(const json& config, bool mlp, Import& in);
void read_periodic_window(const json& config, const json& default_window, int64_t period,
                          const std::string& period_key, Import& in);
void window_everywhere(const json& window, const std::string& key, Import& in);
void read_qwen_window(const json& config, int64_t first_full, bool alternate, Import& in);
void read_attention_bias_beside_biased_mlp(const json& config, Import& in);
void finish_llama(const json& config, Import& in);
void finish_qwen2(const json& config, Import& in);
void finish_gemma(const json& config, Import& in);
void finish_gemma2(const json& config, Import& in);
void finish_gemma3(const json& config, Import& in);
void finish_mixtral(const json& config, Import& in);
void read_qwen3_bias(const json& config, Import& in);
void finish_qwen3(const json& config, Import& in);
void finish_qwen3_moe(const json& config, Import& in);
void finish_qwen2_moe(const json& config, Import& in);
void finish_llama4(const json& config, Import& in);
void finish_gpt_oss(const json& config, Import& in);
void finish_deepseek(const json& config, bool v3, Import& in);
void read_nextn(const std::string& key, const json& value, Import& in);
void finish_deepseek_v2(const json& config, Import& in);
void finish_deepseek_v3(const json& config, Import& in);
void finish_gpt2(const json& config, Import& in);
void finish_falcon(const json& config, Import& in);
void finish_falcon_ffn(const json& config, Import& in);
void finish_phi3(const json& config, Import& in);
void finish_gpt_neox(const json& config, Import& in);
// The table, from io/import/hf_families.json (io/import/hf_families.cpp): families in order, a family by id (among
// a list, or the table's), the model types in order.
const std::vector<Family>& families();
const Family& family(const char* id);
const Family& family(const std::vector<Family>& among, const char* id);
const std::vector<ModelType>& model_types();

}  // namespace shardcalc::hf
