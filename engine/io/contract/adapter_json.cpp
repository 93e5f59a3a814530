#include "io/contract/adapter_json.h"

#include <iterator>

#include "io/contract/field_types.h"

namespace shardcalc {

template <>
const std::vector<std::pair<AdapterMethod, const char*>>& enum_names<AdapterMethod>() {
    static const std::vector<std::pair<AdapterMethod, const char*>> t{
        {AdapterMethod::None, "none"}, {AdapterMethod::Lora, "lora"}, {AdapterMethod::Dora, "dora"}, {AdapterMethod::Qlora, "qlora"}};
    return t;
}
template <>
const std::vector<std::pair<AdapterQuant, const char*>>& enum_names<AdapterQuant>() {
    static const std::vector<std::pair<AdapterQuant, const char*>> t{{AdapterQuant::Nf4, "nf4"}, {AdapterQuant::Gptq, "gptq"}};
    return t;
}
template <>
const std::vector<std::pair<AdapterTarget, const char*>>& enum_names<AdapterTarget>() {
    static const auto table = [] {
        std::vector<std::pair<AdapterTarget, const char*>> t;
        for (unsigned i = 0; i < std::size(kAdapterTargetNames); ++i)
            t.emplace_back(static_cast<AdapterTarget>(1u << i), kAdapterTargetNames[i]);
        return t;
    }();
    return table;
}

namespace {

using namespace schema;
using nlohmann::json;

// adapter.targets: distinct target names, kept as bits.
constexpr char kLinear[] = "linear layer";

template <auto M>
constexpr Field adapter(const char* key, Range range = {}) {
    return field<&Scenario::adapter, M>(key, range);
}

std::string never_required(const Field&) { return {}; }

using A = AdapterSpec;
constexpr Field kAdapterFields[] = {
    adapter<&A::method>("method"),
    adapter<&A::rank>("rank", {1, 65536}),
    adapter<&A::dropout>("dropout", {0, 0.999}),
    {"targets", &kBitSet<AdapterTarget, kLinear>, 0, 0, [](Scenario& s) -> void* { return &s.adapter.targets; }, Echo::Value,
     Applies::Always, Presence::Optional},
    adapter<&A::double_quant>("double_quant"),
    field<&Scenario::adapter, &A::quantization>("quantization", {}, Echo::Value, Applies::Qlora),
    field<&Scenario::adapter, &A::group_size>("group_size", {16, 65536}, Echo::Value, Applies::Gptq),
    adapter<&A::dtype>("dtype"),
    adapter<&A::train_embeddings>("train_embeddings"),
};

}  // namespace

FieldList adapter_fields() { return kAdapterFields; }

void parse_adapter(const json& adapter, Scenario& s) {
    ObjectReader r(adapter, "/adapter");
    read_fields(r, s, adapter_fields(), &never_required);
    r.finish();
}

}  // namespace shardcalc
