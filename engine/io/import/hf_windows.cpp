// The Hugging Face importer: which layers attend through a sliding window (layer_types, periodic windows, Qwen's
// max_window_layers) and the window's size, as transformers places them.
#include "io/import/hf_import.h"

namespace shardcalc::hf {

namespace {

// The layer count when it is one the scenario can hold (model.layers: 1 to 65536); otherwise nothing, and the
// count's own problem is named at its key.
std::optional<int64_t> layer_count(const Import& in) {
    const auto layers = field_count(in, "layers");
    return layers && *layers >= 1 && *layers <= 65536 ? layers : std::nullopt;
}

// transformers' layer_types (one "sliding_attention" or "full_attention" per layer: Qwen2Config, GptOssConfig,
// Gemma2Config, Gemma3TextConfig)
// as local flags, or nothing when the list is refused at its key.
std::optional<LocalLayers> read_layer_types(const json& kinds, int64_t layers, Import& in) {
    if (!kinds.is_array() || kinds.size() != static_cast<size_t>(layers)) {
        in.refuse("layer_types", "must list one attention kind per layer (" + std::to_string(layers) +
                                     " layers), got " + quote(kinds));
        return std::nullopt;
    }
    LocalLayers local;
    for (const json& kind : kinds) {
        if (kind != "sliding_attention" && kind != "full_attention") {
            in.refuse("layer_types", quote(kind) + ": only sliding_attention and full_attention layers are read");
            return std::nullopt;
        }
        local.push_back(kind == "sliding_attention");
    }
    return local;
}

// The window read from `window_key` on these local layers: model.sliding_window, and model.global_every where
// some layers are global. No local layer is no window. A placement the engine's pattern cannot hold is refused
// at `pattern_key`, the message starting with `what` (how the config placed them).
void place_window(const json& window, const std::string& window_key, const LocalLayers& local,
                  const std::string& pattern_key, const std::string& what, Import& in) {
    size_t first_global = local.size();
    bool any_local = false;
    for (size_t i = 0; i < local.size(); ++i) {
        if (local[i]) any_local = true;
        else if (first_global == local.size()) first_global = i;
    }
    if (!any_local) return;
    const size_t every = first_global == local.size() ? 0 : first_global + 1;  // 0: every layer local
    for (size_t i = 0; every > 0 && i < local.size(); ++i)
        if (local[i] != ((i + 1) % every != 0))
            return in.refuse(pattern_key,
                             (what.empty() ? "" : what + ": ") +
                                 "local (sliding-window) and global layers in an order the engine cannot place: it "
                                 "makes every layer local (model.global_every 0) or the layers i with (i + 1) % n == 0 "
                                 "global (model.global_every n); the first global layer here is layer " +
                                 std::to_string(first_global) + ", so n would be " + std::to_string(every) +
                                 ", but layer " + std::to_string(i) + " is " + (local[i] ? "local" : "global"));
    in.set("sliding_window", window, window_key);
    if (every > 0) in.set("global_every", static_cast<int64_t>(every), pattern_key);
}

// The config's sliding_window (or `fallback` where it has none) and the layer count, for a caller to place by its
// own rule; nothing where there is no window, or the config's layer_types listed which layers use it (placed here).
std::optional<std::pair<json, int64_t>> window_unless_listed(const json& config, const json& fallback, Import& in) {
    const auto given = config.find("sliding_window");
    const json window = given == config.end() ? fallback : *given;
    const auto layers = layer_count(in);
    if (window.is_null() || !layers) return std::nullopt;
    if (const json* kinds = find(config, "layer_types")) {
        if (const auto local = read_layer_types(*kinds, *layers, in))
            place_window(window, "sliding_window", *local, "layer_types", "", in);
        return std::nullopt;
    }
    return std::make_pair(window, *layers);
}

}  // namespace

// The window of a config class that lists layer_types and, when a config leaves them out, derives them from a
// period: the layers i with (i + 1) % period != 0 attend through the window, the others fully. GptOssConfig and
// Gemma2Config use 2 (sliding, full, sliding, ...), Gemma3TextConfig its sliding_window_pattern (6: five local
// layers, then a global one). sliding_window defaults to `default_window` and null leaves every layer full.
// Such a pattern is always one the engine can place (global_every = period, or 0 when period > layers); a
// listed layer_types is checked by place_window. `period_key` names the key that gave the period.
void read_periodic_window(const json& config, const json& default_window, int64_t period,
                          const std::string& period_key, Import& in) {
    const auto unplaced = window_unless_listed(config, default_window, in);
    if (!unplaced) return;
    const auto& [window, layers] = *unplaced;
    LocalLayers local;
    for (int64_t i = 0; i < layers; ++i) local.push_back((i + 1) % period != 0);
    place_window(window, "sliding_window", local, period_key, "", in);
}

// Every layer local, as Mistral and Mixtral attend: model.sliding_window alone (model.global_every stays 0).
void window_everywhere(const json& window, const std::string& key, Import& in) {
    if (!window.is_null()) in.set("sliding_window", window, key);
}

// The Qwen families' window (Qwen2Config, Qwen3Config, Qwen2MoeConfig, Qwen3MoeConfig): sliding_window is set
// to None unless use_sliding_window is true, so only then is there a window; sliding_window defaults to 4096.
// Which layers use it: layer_types when the config lists them, else the config class's rule from
// max_window_layers, given by the family: `first_full` (default max_window_layers) with the layers from
// max_window_layers on local (configuration_qwen2.py / configuration_qwen3.py: "sliding_attention" if
// i >= max_window_layers), or, with `alternate`, Qwen2MoeConfig's own rule: the layers i with (i + 1) % 2 != 0
// and i < max_window_layers local (configuration_qwen2_moe.py).
void read_qwen_window(const json& config, int64_t first_full, bool alternate, Import& in) {
    const json* use = find(config, "use_sliding_window");
    if (!use || !must_be_boolean("use_sliding_window", *use, in) || !use->get<bool>()) return;
    const auto unplaced = window_unless_listed(config, json(4096), in);
    if (!unplaced) return;
    const auto& [window, layers] = *unplaced;
    const json* listed = find(config, "max_window_layers");
    const auto max_window = listed ? count_of(*listed) : std::optional<int64_t>(first_full);
    if (!max_window) return in.refuse("max_window_layers", "must be a layer count, got " + quote(*listed));
    LocalLayers local;
    for (int64_t i = 0; i < layers; ++i)
        local.push_back(alternate ? (i + 1) % 2 != 0 && i < *max_window : i >= *max_window);
    const std::string key = listed ? "max_window_layers" : "use_sliding_window";
    const std::string what = "max_window_layers " + std::to_string(*max_window) + (listed ? "" : " (the default)") +
                             (alternate ? ": every other layer below it attends through the window"
                                        : ": the layers from it on attend through the window, those before it fully");
    place_window(window, "sliding_window", local, key, what, in);
}

// A family whose MLP (or experts) is always biased and whose attention_bias defaults to true (GPT-NeoX, gpt-oss):
// false takes the biases of attention alone (model.bias false, model.mlp_bias true).
void read_attention_bias_beside_biased_mlp(const json& config, Import& in) {
    if (flag(config, "attention_bias", true, in)) return;
    in.set("bias", false, "attention_bias");
    in.set("mlp_bias", true, "attention_bias");
}

}  // namespace shardcalc::hf
