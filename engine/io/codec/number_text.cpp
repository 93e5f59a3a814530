#include "io/codec/number_text.h"

#include <cstdint>
#include <cstring>
#include <limits>

namespace shardcalc {
namespace {

constexpr int kDigits = 800;  // enough for every double to round correctly; more only set `truncated`
constexpr unsigned kMaxShift = 60;  // a digit shifted by this many bits, plus a carry, fits 64 bits

// 0.d[0]d[1]...d[count-1] x 10^point, digits as values 0-9.
struct Decimal {
    uint8_t d[kDigits];
    int count = 0;
    int point = 0;
    bool truncated = false;  // nonzero digits beyond `kDigits` were dropped

    void trim() {
        while (count > 0 && d[count - 1] == 0) --count;
        if (count == 0) point = 0;
    }

    // Divides by 2^k (k <= kMaxShift): long division from the most significant digit.
    void shift_right(unsigned k) {
        int read = 0, write = 0;
        uint64_t n = 0;
        for (; (n >> k) == 0; ++read) {
            if (read >= count) {
                if (n == 0) {  // the value was zero
                    count = 0;
                    return;
                }
                while ((n >> k) == 0) {
                    n *= 10;
                    ++read;
                }
                break;
            }
            n = n * 10 + d[read];
        }
        point -= read - 1;
        const uint64_t mask = (uint64_t{1} << k) - 1;
        for (; read < count; ++read) {
            const uint64_t next = d[read];
            d[write++] = static_cast<uint8_t>(n >> k);
            n = (n & mask) * 10 + next;
        }
        while (n > 0) {
            const uint64_t digit = n >> k;
            if (write < kDigits)
                d[write++] = static_cast<uint8_t>(digit);
            else if (digit > 0)
                truncated = true;
            n = (n & mask) * 10;
        }
        count = write;
        trim();
    }

    // Multiplies by 2^k (k <= kMaxShift): from the least significant digit, carrying.
    void shift_left(unsigned k) {
        uint8_t reversed[kDigits + 24];  // at most k log10(2) + 1 < 20 digits more
        int n_digits = 0;
        uint64_t n = 0;
        for (int read = count - 1; read >= 0; --read) {
            n += uint64_t{d[read]} << k;
            reversed[n_digits++] = static_cast<uint8_t>(n % 10);
            n /= 10;
        }
        for (; n > 0; n /= 10) reversed[n_digits++] = static_cast<uint8_t>(n % 10);
        point += n_digits - count;
        int write = 0;
        for (int i = n_digits - 1; i >= 0; --i) {
            if (write < kDigits)
                d[write++] = reversed[i];
            else if (reversed[i] != 0)
                truncated = true;
        }
        count = write;
        trim();
    }

    void shift(int k) {
        for (; k > static_cast<int>(kMaxShift); k -= kMaxShift) shift_left(kMaxShift);
        for (; k < -static_cast<int>(kMaxShift); k += kMaxShift) shift_right(kMaxShift);
        if (k > 0) shift_left(static_cast<unsigned>(k));
        if (k < 0) shift_right(static_cast<unsigned>(-k));
    }

    // The integer part, rounded half to even (digits dropped by truncation break a tie upwards).
    uint64_t rounded_integer() const {
        uint64_t n = 0;
        int i = 0;
        for (; i < point && i < count; ++i) n = n * 10 + d[i];
        for (; i < point; ++i) n *= 10;
        if (point >= 0 && point < count) {
            const bool tie = d[point] == 5 && point + 1 == count && !truncated;
            if (tie ? (point > 0 && d[point - 1] % 2 == 1) : d[point] >= 5) ++n;
        }
        return n;
    }
};

double with_sign(double v, bool negative) { return negative ? -v : v; }

}  // namespace

double nearest_double(std::string_view text) {
    Decimal a;
    size_t i = 0;
    const bool negative = i < text.size() && text[i] == '-';
    if (negative) ++i;
    bool dot = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.') {
            dot = true;
            a.point = a.count;
            continue;
        }
        if (c < '0' || c > '9') break;
        if (c == '0' && a.count == 0) {  // a leading zero: only moves the point
            --a.point;
            continue;
        }
        if (a.count < kDigits)
            a.d[a.count++] = static_cast<uint8_t>(c - '0');
        else if (c != '0')
            a.truncated = true;
    }
    if (!dot) a.point = a.count;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        const bool minus = i < text.size() && text[i] == '-';
        if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
        int e = 0;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
            if (e < 100000) e = e * 10 + (text[i] - '0');
        a.point += minus ? -e : e;
    }
    a.trim();

    constexpr int kBias = -1023, kMantissaBits = 52, kExponentBits = 11;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (a.count == 0 || a.point < -330) return with_sign(0, negative);
    if (a.point > 310) return with_sign(kInf, negative);
    // Bring the value into [1/2, 1) by powers of two, counting them in `exponent`: shifts that move the decimal
    // point by one to nine places at a time.
    static const int kPowers[] = {1, 3, 6, 9, 13, 16, 19, 23, 26};
    int exponent = 0;
    while (a.point > 0) {
        const int n = a.point >= 9 ? 27 : kPowers[a.point];
        a.shift(-n);
        exponent += n;
    }
    while (a.point < 0 || (a.point == 0 && a.d[0] < 5)) {
        const int n = a.point == 0 ? 1 : (-a.point >= 9 ? 27 : kPowers[-a.point]);
        a.shift(n);
        exponent -= n;
    }
    --exponent;  // the value is 2^exponent x [1, 2)
    if (exponent < kBias + 1) {  // subnormal: the mantissa loses the bits below 2^-1074
        const int n = kBias + 1 - exponent;
        a.shift(-n);
        exponent += n;
    }
    if (exponent - kBias >= (1 << kExponentBits) - 1) return with_sign(kInf, negative);
    a.shift(kMantissaBits + 1);
    uint64_t mantissa = a.rounded_integer();
    if (mantissa == uint64_t{2} << kMantissaBits) {  // rounding carried into a new bit
        mantissa >>= 1;
        ++exponent;
        if (exponent - kBias >= (1 << kExponentBits) - 1) return with_sign(kInf, negative);
    }
    if ((mantissa & (uint64_t{1} << kMantissaBits)) == 0) exponent = kBias;  // subnormal
    uint64_t bits = (mantissa & ((uint64_t{1} << kMantissaBits) - 1)) |
                    (static_cast<uint64_t>(exponent - kBias) & ((1u << kExponentBits) - 1)) << kMantissaBits;
    if (negative) bits |= uint64_t{1} << 63;
    double out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
}

}  // namespace shardcalc
