#pragma once
// A vector of plain values that keeps its first N in place and moves to the heap only past them: a plan's chunks hold
// one or two kinds of layer, a stage one to a few chunks, a step five moments of memory, and the search builds these
// for every plan it weighs, where a heap allocation each was about a tenth of a plan's estimate (measured with perf).
// The subset of std::vector the engine uses; elements must be trivially copyable.
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

namespace shardcalc {

template <class T, size_t N>
class SmallVector {
    static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds plain values");

public:
    using value_type = T;
    using iterator = T*;
    using const_iterator = const T*;

    SmallVector() = default;
    SmallVector(std::initializer_list<T> items) {
        for (const T& v : items) push_back(v);
    }
    // From any range of T (a std::vector the callers already hold).
    template <class Range>
    static SmallVector of(const Range& items) {
        SmallVector out;
        for (const auto& v : items) out.push_back(v);
        return out;
    }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T* data() { return heap_.empty() ? in_place_ : heap_.data(); }
    const T* data() const { return heap_.empty() ? in_place_ : heap_.data(); }
    T* begin() { return data(); }
    T* end() { return data() + size_; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + size_; }
    T& operator[](size_t i) { return data()[i]; }
    const T& operator[](size_t i) const { return data()[i]; }
    T& front() { return data()[0]; }
    const T& front() const { return data()[0]; }
    T& back() { return data()[size_ - 1]; }
    const T& back() const { return data()[size_ - 1]; }

    void reserve(size_t n) {
        if (n > N && heap_.empty()) move_to_heap(n);
        else if (n > N) heap_.reserve(n);
    }
    void push_back(const T& v) {
        if (heap_.empty() && size_ < N) {
            in_place_[size_++] = v;
            return;
        }
        if (heap_.empty()) move_to_heap(size_ + 1);
        heap_.push_back(v);
        ++size_;
    }
    template <class... Args>
    T& emplace_back(Args&&... args) {
        push_back(T{std::forward<Args>(args)...});
        return back();
    }
    void clear() {
        heap_.clear();
        size_ = 0;
    }
    // std::vector<T> of the same elements (for callers that keep one).
    std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

    friend bool operator==(const SmallVector& a, const SmallVector& b) {
        return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    // Past N every element lives on the heap (in_place_ is then unused): data() is one test.
    void move_to_heap(size_t capacity) {
        heap_.reserve(std::max(capacity, 2 * N));
        heap_.assign(in_place_, in_place_ + size_);
    }

    size_t size_ = 0;
    T in_place_[N];  // the first size_ are set (left unset: zeroing them cost more than the values they hold)
    std::vector<T> heap_;
};

}  // namespace shardcalc
