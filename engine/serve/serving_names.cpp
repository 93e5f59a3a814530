// Spellings of the serving enums in the JSON contract (the same tables as scenario/names.cpp).
#include "scenario/names.h"
#include "serve/serving.h"

namespace shardcalc {

template <>
const std::vector<std::pair<WeightFormat, const char*>>& enum_names<WeightFormat>() {
    static const std::vector<std::pair<WeightFormat, const char*>> t{
        {WeightFormat::Model, "model"}, {WeightFormat::Fp8, "fp8"}, {WeightFormat::Int8, "int8"}, {WeightFormat::Int4, "int4"},
        {WeightFormat::Nvfp4, "nvfp4"}, {WeightFormat::Mxfp4, "mxfp4"}};
    return t;
}

template <>
const std::vector<std::pair<KvCacheDtype, const char*>>& enum_names<KvCacheDtype>() {
    static const std::vector<std::pair<KvCacheDtype, const char*>> t{{KvCacheDtype::Auto, "auto"}, {KvCacheDtype::Fp8, "fp8"}};
    return t;
}

template <>
const std::vector<std::pair<SpeculativeMethod, const char*>>& enum_names<SpeculativeMethod>() {
    static const std::vector<std::pair<SpeculativeMethod, const char*>> t{
        {SpeculativeMethod::None, "none"}, {SpeculativeMethod::Ngram, "ngram"}, {SpeculativeMethod::Mtp, "mtp"},
        {SpeculativeMethod::Eagle, "eagle"}};
    return t;
}

template <>
const std::vector<std::pair<ServingEngine, const char*>>& enum_names<ServingEngine>() {
    static const std::vector<std::pair<ServingEngine, const char*>> t{{ServingEngine::Vllm, "vllm"},
                                                                      {ServingEngine::Transformers, "transformers"}};
    return t;
}

template <>
const std::vector<std::pair<KvCacheImpl, const char*>>& enum_names<KvCacheImpl>() {
    static const std::vector<std::pair<KvCacheImpl, const char*>> t{{KvCacheImpl::Dynamic, "dynamic"}, {KvCacheImpl::Static, "static"}};
    return t;
}

}  // namespace shardcalc
