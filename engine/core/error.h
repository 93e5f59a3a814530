#pragma once
// Invalid input is reported as a value-carrying exception at the engine edge and
// converted into {path, message} by io/api.cpp; nothing else in the engine throws.
#include <stdexcept>
#include <string>

namespace shardcalc {

class InputError : public std::runtime_error {
public:
    InputError(std::string path, const std::string& message)
        : std::runtime_error(message), path_(std::move(path)) {}
    const std::string& path() const { return path_; }

private:
    std::string path_;  // JSON pointer of the offending field, e.g. "/parallel/tp"
};

}  // namespace shardcalc
