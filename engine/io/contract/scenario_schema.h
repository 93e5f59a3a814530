#pragma once
// The scenario's schema: one entry per JSON field (its key, type, range, where it applies and how the echo writes
// it), from which the parser (io/contract/scenario_json.cpp), the echo (io/contract/scenario_echo.cpp) and `shardcalc schema` (the
// schema as JSON, which the fuzz dictionary, the docs' field tables and the page's field catalogue are checked
// against) are all driven. A new field is one entry in io/contract/scenario_schema.cpp; rules that relate fields to each
// other stay in the parser (a few) and in scenario/validate.cpp.
#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/codec/json_reader.h"
#include "scenario/scenario.h"

namespace shardcalc {

// How the echo writes a field: its value (an unset optional is left out); only when it is on (non-zero, true,
// non-empty, not its enum's first value) or the model preset sets it, so that reading the echo back, which applies
// the preset first, keeps it off; never (read, not echoed, or written by the section's own code).
enum class Echo : unsigned char { Value, WhenOn, Never };
// Where a field describes the model: the echo writes it there only, and a required field is required there only.
enum class Applies : unsigned char {
    Always,
    Transformer,   // model.arch is not lstm
    Lstm,          // model.arch is lstm
    Moe,           // model.experts > 0
    MoeOrEp,       // model.experts > 0 or parallel.ep > 1
    Mla,           // a transformer with model.kv_lora_rank > 0 (multi-head latent attention)
    Window,        // a transformer with model.sliding_window > 0
    MlmPositions,  // training.mlm_predictions > 0, or an encoder with its MLM head (where the default applies)
    MatrixUnit,    // a TPU, or a matrix_unit given
    Qlora,         // adapter.method is qlora
    Gptq,          // a QLoRA base stored as GPTQ (adapter.quantization gptq)
};
enum class Presence : unsigned char { Optional, Required };

struct Field;

// How one C++ member type is read from JSON, written back, tested for "on" and described.
struct FieldType {
    const char* name;  // as `shardcalc schema` prints it: integer, number, boolean, string, enum, enum list, integer list
    // Reads the field into `target` (nullptr: checked and dropped); returns whether it was given and valid.
    bool (*read)(ObjectReader& r, const Field& f, void* target);
    void (*write)(nlohmann::json& object, const Field& f, const void* value);  // leaves an unset optional out
    bool (*on)(const void* value);
    std::string (*choices)();  // "a|b|c" for an enum or enum list; nullptr otherwise
    bool optional;             // unset is a state of its own (std::optional): a framework or derived default
};

struct Field {
    const char* key;
    const FieldType* type;
    double min, max;            // an integer's or number's range, a list's elements'
    void* (*at)(Scenario& s);   // the member it fills; nullptr: read for its checks only
    Echo echo;
    Applies applies;
    Presence presence;
    // The member's value for reading (at() only takes its address; nothing is written through it here).
    const void* value(const Scenario& s) const { return at ? at(const_cast<Scenario&>(s)) : nullptr; }
};

// One object's entries: a constant table (data in the binary, nothing built when the program starts: the page's core
// downloads every byte of code), or a test's own vector.
struct FieldList {
    const Field* first = nullptr;
    size_t count = 0;
    constexpr FieldList() = default;
    template <size_t N>
    constexpr FieldList(const Field (&table)[N]) : first(table), count(N) {}
    FieldList(const std::vector<Field>& v) : first(v.data()), count(v.size()) {}
    const Field* begin() const { return first; }
    const Field* end() const { return first + count; }
    size_t size() const { return count; }
};

// One object of the scenario: its JSON path ("" for the top level, "/hardware/peak_tflops") and fields, in the order
// the parser reads them (the order its problems are listed in).
struct SchemaObject {
    const char* path;
    FieldList fields;
};
using Schema = std::array<SchemaObject, 8>;
const Schema& scenario_schema();
FieldList schema_fields(const char* path);  // one object's, by path; throws std::out_of_range

bool applies(Applies where, const Scenario& s);
bool applies(Applies where, const ResolvedScenario& s);

// Reads every field of one object, in order, into `s`; a missing required field (where it applies) is a problem
// worded by `required_message`.
void read_fields(ObjectReader& r, Scenario& s, FieldList fields,
                 std::string (*required_message)(const Field& f));
// Writes the object's fields as the echo rules say; `preset`: the model preset's fields (WhenOn), or nullptr.
void write_fields(nlohmann::json& object, const Scenario& s, FieldList fields, const nlohmann::json* preset);

// The schema as JSON: per object, each field's key, type, range, choices, default, where it applies and whether it
// is required (`shardcalc schema`; docs/scenario.md §2 describes each field), and the report's terms (the parts of
// the step's time, the memory timeline's moments and lines: keys and labels in display order).
nlohmann::json schema_to_json();

}  // namespace shardcalc
