#include "io/contract/logged_term_json.h"

#include "io/codec/json_writer.h"

namespace shardcalc {

nlohmann::json logged_terms_json(const std::vector<LoggedTerm>& terms) {
    using nlohmann::json;
    json out = json::array();
    for (const LoggedTerm& t : terms) {
        const bool bytes = t.unit == LoggedUnit::Bytes;
        const auto value = [&](double v) { return bytes ? json(whole(v)) : json(v); };
        out.push_back({{"key", t.key}, {"label", t.label}, {"log", value(t.log)}, {"estimate", value(t.estimate)},
                       {"gap", value(t.gap)}, {"unit", unit_name(t.unit)}});
    }
    return out;
}

}  // namespace shardcalc
