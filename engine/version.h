#pragma once
namespace shardcalc {
constexpr const char* kEngineVersion = "0.1.0";
}
