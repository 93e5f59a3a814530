// libFuzzer target with a structure-aware mutator (LLVMFuzzerCustomMutator): the input is parsed as
// JSON and, when it is valid, one random structural mutation is applied and the tree serialised
// again; when it is not, libFuzzer's own byte-level mutation (LLVMFuzzerMutate) runs instead.
// The check on every input is fuzz_api's (check_output.h).
//
// Mutations: swap a value's type (number/string/bool/null/array/object); set an extreme (0, -1,
// 2^31, 2^53, 2^63, 2^64-1, 1e308, -1e308, 1e-308, 1.0, -0.0, very long strings); add an unknown
// key; duplicate a key (as text: a JSON tree cannot hold two); unicode and invalid UTF-8 in keys
// and strings; delete a key (required ones more often); move a key to another section; set a known
// field to a plausible value (small integers, powers of two, another enum spelling or preset id),
// so that mutants also reach the valid, deep part of the engine; and a crossover that grafts a
// section of one input into another. The keys and enum spellings are the engine's own schema
// (io/contract/scenario_schema.h), read at start-up, so they never drift.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "check_output.h"
#include "io/presets.h"
#include "io/contract/scenario_schema.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using nlohmann::json;
using Rng = std::mt19937_64;

// Placeholders replaced in the serialised text (control characters dump as \u0001, \u0002).
const std::string kDupKey = "\x01shardcalc-dup\x01";
const std::string kDupKeyText = "\"\\u0001shardcalc-dup\\u0001\"";
const std::string kBadUtf8 = "\x02shardcalc-bad\x02";
const std::string kBadUtf8Text = "\\u0002shardcalc-bad\\u0002";

const char* const kSections[] = {"model", "training", "parallel", "hardware", "implementation"};
const char* const kRequired[] = {"model", "preset", "layers", "hidden", "heads", "vocab"};
const char* const kBadBytes[] = {"\xff", "\xfe\xff", "\xc0\x80", "\xed\xa0\x80", "\xe2\x82", "\xf8\x88\x80\x80\x80",
                                 "\x80", "\xf4\x90\x80\x80", "a\xc3"};
const std::string kUnicode[] = {"\xc3\xa9", "\xf0\x9f\x98\x80", "\xe2\x80\x8b", "\xef\xbb\xbf", "\xe2\x80\xae",
                                "\xcc\x81", "\xe4\xb8\xad", std::string("\0", 1), "\x7f", "\\", "\"", "/", "~"};

// What the engine accepts, learned at start-up: section pointer -> keys; key -> enum spellings.
std::map<std::string, std::vector<std::string>> g_keys;
std::map<std::string, std::vector<std::string>> g_enums;
std::vector<std::string> g_all_keys, g_all_values;

// The keys of each object and the spellings of each enum, from the engine's schema (io/contract/scenario_schema.h).
void learn() {
    const json schema = shardcalc::schema_to_json();
    for (const json& object : schema["objects"]) {
        const std::string path = object["path"];
        for (const json& field : object["fields"]) {
            const std::string key = field["key"];
            g_keys[path].push_back(key);
            g_all_keys.push_back(key);
            if (!field.contains("choices")) continue;
            for (const json& choice : field["choices"]) {
                g_enums[key].push_back(choice);
                g_all_values.push_back(choice);
            }
        }
    }
    for (const char* kind : {"models", "hardware"})
        for (const auto& p : shardcalc::all_presets()[kind]) g_all_values.push_back(p["id"].get<std::string>());
    for (const char* s : kSections) g_all_keys.emplace_back(s);
    if (g_all_keys.empty()) g_all_keys.emplace_back("model");
    if (g_all_values.empty()) g_all_values.emplace_back("gpt2");
}

template <class T, size_t N>
const T& pick(const T (&a)[N], Rng& rng) {
    return a[rng() % N];
}
template <class T>
const T& pick(const std::vector<T>& v, Rng& rng) {
    return v[rng() % v.size()];
}

// Nesting depth of a JSON text without parsing it (strings skipped): deep trees are left to
// libFuzzer's byte mutations, so that nothing here recurses deeply.
size_t text_depth(const uint8_t* data, size_t size) {
    size_t depth = 0, max_depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < size; ++i) {
        const char c = static_cast<char>(data[i]);
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            max_depth = std::max(max_depth, ++depth);
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return max_depth;
}

// Every value of the tree, with its parent container (nullptr for the root) and key or index.
struct Node {
    json* value;
    json* parent;
    std::string key;
    size_t index;
};

void collect(json& j, json* parent, const std::string& key, size_t index, std::vector<Node>& out) {
    out.push_back({&j, parent, key, index});
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it) collect(it.value(), &j, it.key(), 0, out);
    else if (j.is_array())
        for (size_t i = 0; i < j.size(); ++i) collect(j[i], &j, "", i, out);
}

json random_number(Rng& rng) {
    switch (rng() % 4) {
        case 0: return static_cast<int64_t>(rng() % 9);
        case 1: return int64_t{1} << (rng() % 21);
        case 2: return static_cast<int64_t>(rng() % 100000) - 1000;
        default: return static_cast<double>(rng() % 1000) / 7.0;
    }
}

json random_scalar(Rng& rng) {
    switch (rng() % 5) {
        case 0: return random_number(rng);
        case 1: return pick(g_all_values, rng);
        case 2: return rng() % 2 == 0;
        case 3: return nullptr;
        default: return std::string(1 + rng() % 8, static_cast<char>('a' + rng() % 26));
    }
}

json extreme(Rng& rng) {
    switch (rng() % 24) {
        case 0: return 0;
        case 1: return -1;
        case 2: return int64_t{1} << 31;
        case 3: return (int64_t{1} << 31) - 1;
        case 4: return int64_t{1} << 32;
        case 5: return int64_t{1} << 53;
        case 6: return (int64_t{1} << 53) + 1;
        case 7: return uint64_t{1} << 63;
        case 8: return ~uint64_t{0};
        case 9: return INT64_MIN;
        case 10: return 1e308;
        case 11: return -1e308;
        case 12: return 1e-308;
        case 13: return 4.9e-324;
        case 14: return 1.0;
        case 15: return -0.0;
        case 16: return 0.5;
        case 17: return 1e15;
        case 18: return 1.7976931348623157e308;
        case 19: return std::string();
        case 20: return std::string(1000 + rng() % 60000, 'x');
        case 21: return std::string(64 + rng() % 4096, static_cast<char>('a' + rng() % 26));
        case 22: return int64_t{1} << 62;
        default: return 4096;
    }
}

json with_type_swapped(const json& v, Rng& rng) {
    for (int tries = 0; tries < 8; ++tries) {
        json out;
        switch (rng() % 7) {
            case 0: out = random_number(rng); break;
            case 1: out = v.is_primitive() ? json(v.dump()) : json(pick(g_all_values, rng)); break;  // 8 -> "8"
            case 2: out = rng() % 2 == 0; break;
            case 3: out = nullptr; break;
            case 4: out = json::array({v}); break;
            case 5: out = json::object({{pick(g_all_keys, rng), v}}); break;
            default: out = v.is_array() && !v.empty() ? v[0] : json::array(); break;
        }
        if (out.type() != v.type()) return out;
    }
    return nullptr;
}

// A plausible value for a known key: an enum spelling or preset id, a boolean or a small number.
json plausible(const std::string& key, const json& current, Rng& rng) {
    const auto e = g_enums.find(key);
    if (e != g_enums.end() && !e->second.empty()) return pick(e->second, rng);
    if (key == "preset") return pick(g_all_values, rng);
    if (current.is_boolean()) return !current.get<bool>();
    if (current.is_number_float()) return static_cast<double>(rng() % 1000) / 1000.0;
    switch (rng() % 3) {
        case 0: return int64_t{1} << (rng() % 7);
        case 1: return static_cast<int64_t>(1 + rng() % 16);
        default: return int64_t{1} << (rng() % 18);
    }
}

std::vector<json*> objects_of(std::vector<Node>& nodes) {
    std::vector<json*> out;
    for (auto& n : nodes)
        if (n.value->is_object()) out.push_back(n.value);
    return out;
}

// One structural mutation of `root`; the text replacements (duplicate key, invalid UTF-8) are
// returned for after serialisation.
struct Edit {
    std::string dup_key;  // the key the duplicate placeholder becomes
    std::string bad_utf8;  // the bytes the invalid-UTF-8 placeholder becomes
};

bool mutate(json& root, Rng& rng, Edit& edit) {
    std::vector<Node> nodes;
    collect(root, nullptr, "", 0, nodes);
    std::vector<json*> objects = objects_of(nodes);
    Node& n = nodes[rng() % nodes.size()];
    switch (rng() % 11) {
        case 0:  // swap a value's type
            *n.value = with_type_swapped(*n.value, rng);
            return true;
        case 1:  // an extreme value
            *n.value = extreme(rng);
            return true;
        case 2: {  // an unknown key (or a key known elsewhere)
            if (objects.empty()) return false;
            json& o = *pick(objects, rng);
            const std::string key = rng() % 2 ? pick(g_all_keys, rng) : "zz_" + std::to_string(rng() % 100);
            o[key] = random_scalar(rng);
            return true;
        }
        case 3: {  // a duplicate key, as text
            std::vector<json*> nonempty;
            for (json* o : objects)
                if (!o->empty()) nonempty.push_back(o);
            if (nonempty.empty()) return false;
            json& o = *pick(nonempty, rng);
            auto it = o.begin();
            std::advance(it, static_cast<long>(rng() % o.size()));
            edit.dup_key = it.key();
            o[kDupKey] = rng() % 2 ? it.value() : (rng() % 2 ? random_scalar(rng) : extreme(rng));
            return true;
        }
        case 4: {  // unicode or invalid UTF-8 in a key or a string
            const bool bad = rng() % 2;
            const std::string insert = bad ? kBadUtf8 : pick(kUnicode, rng);
            if (bad) edit.bad_utf8 = pick(kBadBytes, rng);
            if (n.parent && n.parent->is_object() && rng() % 2) {  // in the key
                std::string key = n.key;
                key.insert(rng() % (key.size() + 1), insert);
                json v = std::move(*n.value);
                n.parent->erase(n.key);
                (*n.parent)[key] = std::move(v);
            } else if (n.value->is_string() && rng() % 2) {
                std::string s = n.value->get<std::string>();
                s.insert(rng() % (s.size() + 1), insert);
                *n.value = s;
            } else {
                *n.value = pick(g_all_values, rng) + insert;
            }
            return true;
        }
        case 5: {  // delete a key, a required one when there is one
            std::vector<Node*> required, any;
            for (auto& m : nodes)
                if (m.parent && m.parent->is_object()) {
                    any.push_back(&m);
                    for (const char* r : kRequired)
                        if (m.key == r) required.push_back(&m);
                }
            if (any.empty()) return false;
            Node* d = !required.empty() && rng() % 2 ? pick(required, rng) : pick(any, rng);
            d->parent->erase(d->key);
            return true;
        }
        case 6: {  // move a key into another object (another section)
            if (!n.parent || !n.parent->is_object() || objects.size() < 2) return false;
            json* to = pick(objects, rng);
            if (to == n.parent || to == n.value) return false;
            // A value must not move into itself: `to` inside n.value would be destroyed with it.
            for (auto& m : nodes)
                if (m.value == to) {
                    for (json* p = m.parent; p; ) {
                        if (p == n.value) return false;
                        json* next = nullptr;
                        for (auto& q : nodes)
                            if (q.value == p) next = q.parent;
                        p = next;
                    }
                }
            json v = std::move(*n.value);
            const std::string key = n.key;
            n.parent->erase(key);
            (*to)[key] = std::move(v);
            return true;
        }
        case 7:
        case 8: {  // a plausible value for a known key (reaches valid scenarios)
            std::vector<Node*> keyed;
            for (auto& m : nodes)
                if (m.parent && m.parent->is_object() && !m.value->is_structured()) keyed.push_back(&m);
            if (keyed.empty()) return false;
            Node* k = pick(keyed, rng);
            *k->value = plausible(k->key, *k->value, rng);
            return true;
        }
        case 9: {  // add a known key with a plausible value to a section
            if (!root.is_object()) return false;
            const std::string section = pick(kSections, rng);
            const auto keys = g_keys.find("/" + section);
            if (keys == g_keys.end() || keys->second.empty()) return false;
            json& s = root[section];
            if (!s.is_object()) s = json::object();
            const std::string key = pick(keys->second, rng);
            s[key] = plausible(key, s.contains(key) ? s[key] : json(), rng);
            return true;
        }
        default: {  // a whole section replaced, deleted or emptied
            if (!root.is_object()) return false;
            const std::string section = pick(kSections, rng);
            switch (rng() % 3) {
                case 0: root.erase(section); break;
                case 1: root[section] = json::object(); break;
                default: root[section] = extreme(rng); break;
            }
            return true;
        }
    }
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

size_t emit(const std::string& text, uint8_t* data, size_t max_size) {
    if (text.size() > max_size) return 0;
    std::memcpy(data, text.data(), text.size());
    return text.size();
}

bool parse_shallow(const uint8_t* data, size_t size, json& out) {
    if (size == 0 || text_depth(data, size) > 32) return false;
    out = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
    return !out.is_discarded();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    learn();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::evaluate_and_check(data, size);
    return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
    Rng rng(seed);
    json root;
    if (!parse_shallow(data, size, root)) return LLVMFuzzerMutate(data, size, max_size);
    Edit edit;
    bool changed = false;
    for (int tries = 0; tries < 4 && !changed; ++tries) changed = mutate(root, rng, edit);
    if (!changed) return LLVMFuzzerMutate(data, size, max_size);
    std::string text = root.dump(rng() % 4 == 0 ? 1 : -1, ' ', false, json::error_handler_t::replace);
    if (!edit.dup_key.empty()) {
        json key = edit.dup_key;
        replace_all(text, kDupKeyText, key.dump(-1, ' ', false, json::error_handler_t::replace));
    }
    if (!edit.bad_utf8.empty()) replace_all(text, kBadUtf8Text, edit.bad_utf8);
    const size_t out = emit(text, data, max_size);
    return out ? out : LLVMFuzzerMutate(data, size, max_size);
}

// Grafts one top-level section (or key) of the second input into the first.
extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1, const uint8_t* data2, size_t size2,
                                            uint8_t* out, size_t max_out, unsigned int seed) {
    Rng rng(seed);
    json a, b;
    if (!parse_shallow(data1, size1, a) || !parse_shallow(data2, size2, b) || !a.is_object() || !b.is_object() ||
        b.empty())
        return 0;
    auto it = b.begin();
    std::advance(it, static_cast<long>(rng() % b.size()));
    if (it.value().is_object() && !it.value().empty() && a.contains(it.key()) && a[it.key()].is_object() && rng() % 2) {
        auto inner = it.value().begin();
        std::advance(inner, static_cast<long>(rng() % it.value().size()));
        a[it.key()][inner.key()] = inner.value();
    } else {
        a[it.key()] = it.value();
    }
    return emit(a.dump(-1, ' ', false, json::error_handler_t::replace), out, max_out);
}
