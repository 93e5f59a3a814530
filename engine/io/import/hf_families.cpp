// The Hugging Face importer's table, read from its data (io/import/hf_families.json, embedded at configure time:
// engine/CMakeLists.txt): the model types it reads, each family's fixed fields, the keys it reads and how, and its
// finishing decisions. A family whose keys fit the readers below is one entry in that file; a reader or a finisher is
// code (io/import/hf_*.cpp), named there and looked up here.
#include <stdexcept>

#include "io/import/hf_import.h"

namespace shardcalc::hf {

const char* families_text();  // the embedded hf_families.json (generated: hf_families_data.cpp)

namespace {

[[noreturn]] void bad_table(const std::string& what) {
    throw std::logic_error("io/import/hf_families.json: " + what);
}

Read reader_named(const std::string& name) {
    static const std::pair<const char*, Read> readers[] = {
        {"later", later},
        {"same_weights", same_weights},
        {"read_gated_act", read_gated_act},
        {"read_plain_act", read_plain_act},
        {"read_false", read_false},
        {"read_absolute", read_absolute},
        {"read_not_decoder", read_not_decoder},
        {"read_one_group", read_one_group},
        {"read_nextn", read_nextn},
    };
    for (const auto& [n, read] : readers)
        if (name == n) return read;
    bad_table("no reader " + name);
}

Finish finisher_named(const std::string& name) {
    static const std::pair<const char*, Finish> finishers[] = {
        {"finish_llama", finish_llama},         {"finish_qwen2", finish_qwen2},
        {"finish_gemma", finish_gemma},         {"finish_gemma2", finish_gemma2},
        {"finish_gemma3", finish_gemma3},       {"finish_mixtral", finish_mixtral},
        {"finish_qwen3", finish_qwen3},         {"finish_qwen3_moe", finish_qwen3_moe},
        {"finish_qwen2_moe", finish_qwen2_moe}, {"finish_llama4", finish_llama4},
        {"finish_gpt_oss", finish_gpt_oss},     {"finish_deepseek_v2", finish_deepseek_v2},
        {"finish_deepseek_v3", finish_deepseek_v3}, {"finish_gpt2", finish_gpt2},
        {"finish_falcon_ffn", finish_falcon_ffn},   {"finish_phi3", finish_phi3},
        {"finish_gpt_neox", finish_gpt_neox},
    };
    for (const auto& [n, finish] : finishers)
        if (name == n) return finish;
    bad_table("no finisher " + name);
}

// The table as parsed once; every name a Family or a Rule points at lives in it.
const json& table() {
    static const json t = json::parse(families_text());
    return t;
}

const char* text_of(const json& v) { return v.get_ref<const std::string&>().c_str(); }

// The rules of a "keys" list: a key set's or an earlier family's rules where a name stands, in order;
// `intermediate` is where the common set's intermediate_size goes.
void add_keys(const json& keys, const char* intermediate, const std::vector<Family>& earlier, std::vector<Rule>& out) {
    for (const json& entry : keys) {
        if (entry.is_string()) {
            const std::string& name = entry.get_ref<const std::string&>();
            if (const json& sets = table().at("key_sets"); sets.contains(name)) {
                add_keys(sets.at(name).at("keys"), intermediate, earlier, out);
                continue;
            }
            const Family& from = family(earlier, name.c_str());
            out.insert(out.end(), from.rules.begin(), from.rules.end());
            continue;
        }
        const json& key = entry.at(0);
        const json& field = entry.at(1);
        const char* to = field.is_null() ? nullptr : text_of(field);
        if (to && std::string(to) == "$intermediate") to = intermediate;
        out.push_back({text_of(key), to, entry.size() > 2 ? reader_named(entry.at(2)) : nullptr});
        if (!out.back().field == !out.back().read) bad_table(std::string(text_of(key)) + ": a field or a reader, one");
    }
}

std::vector<Family> read_families() {
    std::vector<Family> all;
    for (const json& f : table().at("families")) {
        Family family{text_of(f.at("id")), json::object(), {}, nullptr};
        if (const auto from = f.find("fixed_from"); from != f.end()) family.fixed = hf::family(all, text_of(*from)).fixed;
        family.fixed.update(f.at("fixed"));
        const char* intermediate = f.contains("intermediate") ? text_of(f.at("intermediate")) : "ffn_hidden";
        add_keys(f.at("keys"), intermediate, all, family.rules);
        if (const auto finish = f.find("finish"); finish != f.end()) family.finish = finisher_named(*finish);
        all.push_back(std::move(family));
    }
    return all;
}

}  // namespace

const Family& family(const std::vector<Family>& among, const char* id) {
    for (const Family& f : among)
        if (std::string(f.id) == id) return f;
    bad_table(std::string("no family ") + id);
}

const std::vector<Family>& families() {
    static const std::vector<Family> all = read_families();
    return all;
}

const Family& family(const char* id) { return family(families(), id); }

const std::vector<ModelType>& model_types() {
    static const std::vector<ModelType> all = [] {
        std::vector<ModelType> out;
        for (const json& t : table().at("model_types")) {
            const char* id = text_of(t.at("family"));
            family(id);  // names a family of the table
            out.push_back({text_of(t.at("type")), text_of(t.at("label")), id,
                           t.contains("nested") ? text_of(t.at("nested")) : nullptr});
        }
        return out;
    }();
    return all;
}

}  // namespace shardcalc::hf
