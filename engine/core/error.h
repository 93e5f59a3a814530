#pragma once
// Invalid input is reported as a value-carrying exception at the engine edge and
// converted into {path, message} by io/api.cpp; nothing else in the engine throws.
#include <stdexcept>
#include <string>

namespace shardcalc {

class InputError : public std::runtime_error {
public:
    InputError(std::string path, std::string message)
        : std::runtime_error(message), path_(std::move(path)), message_(std::move(message)) {}
    const std::string& path() const { return path_; }
    // The whole message: what() stops at the first NUL, and a user's string echoed here may hold one ("\u0000").
    const std::string& message() const { return message_; }

private:
    std::string path_;  // JSON pointer of the offending field, e.g. "/parallel/tp"
    std::string message_;
};

}  // namespace shardcalc
