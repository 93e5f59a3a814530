// Spellings of the search's enums in the JSON contract (the same tables as scenario/names.cpp).
#include "scenario/names.h"
#include "search/search_spec.h"

namespace shardcalc {

template <>
const std::vector<std::pair<Question, const char*>>& enum_names<Question>() {
    static const std::vector<std::pair<Question, const char*>> t{{Question::BestPlan, "best_plan"},
                                                                 {Question::MaxMicroBatch, "max_micro_batch"},
                                                                 {Question::MinDevices, "min_devices"},
                                                                 {Question::MaxSeqLen, "max_seq_len"}};
    return t;
}

template <>
const std::vector<std::pair<RankBy, const char*>>& enum_names<RankBy>() {
    static const std::vector<std::pair<RankBy, const char*>> t{
        {RankBy::StepTime, "step_time"}, {RankBy::CostPerToken, "cost_per_token"}, {RankBy::Headroom, "headroom"}};
    return t;
}

template <>
const std::vector<std::pair<SearchDim, const char*>>& enum_names<SearchDim>() {
    static const std::vector<std::pair<SearchDim, const char*>> t{
        {SearchDim::Tp, "tp"},       {SearchDim::Pp, "pp"},
        {SearchDim::Vpp, "vpp"},     {SearchDim::Sp, "sp"},
        {SearchDim::Cp, "cp"},       {SearchDim::Ulysses, "ulysses"},
        {SearchDim::Ep, "ep"},
        {SearchDim::Zero, "zero"},   {SearchDim::MicroBatch, "micro_batch"},
        {SearchDim::Recompute, "recompute"}, {SearchDim::Offload, "offload"}};
    return t;
}

}  // namespace shardcalc
