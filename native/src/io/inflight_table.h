// The ring's ops in flight by id: open addressing with linear probing and backward-shift
// deletion (no tombstones), so tracking and reaping an op touches one flat array and allocates
// nothing once the table has grown to the peak in flight (std::unordered_map allocated a node
// per op). The table doubles when half full and never shrinks: bounded by the most ops ever in
// flight at once, which IoRing keeps to the ring's depth.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>
#include "io/io_op.h"

namespace orbitkv {

class InflightTable {
 public:
  InflightTable() { slots_.resize(kInitial); }
  size_t Size() const { return size_; }
  bool Empty() const { return size_ == 0; }
  /** The op in flight under `id`, or nullptr. */
  IoOp* Find(uint32_t id) const {
    for (size_t i = Home(id);; i = (i + 1) & Mask()) {
      IoOp* op = slots_[i];
      if (op == nullptr) return nullptr;
      if (op->id == id) return op;
    }
  }
  /** Adds `op` under op->id; the caller has checked that the id is not in flight. */
  void Insert(IoOp* op) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    Place(op);
    size_++;
  }
  /** Removes the op under `id` (present); later entries of its probe run shift back. */
  void Erase(uint32_t id) {
    size_t hole = Home(id);
    while (slots_[hole]->id != id) hole = (hole + 1) & Mask();
    for (size_t i = (hole + 1) & Mask(); slots_[i] != nullptr; i = (i + 1) & Mask()) {
      size_t home = Home(slots_[i]->id);
      // Entry i may move into the hole unless its home lies cyclically in (hole, i].
      bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
      if (stays) continue;
      slots_[hole] = slots_[i];
      hole = i;
    }
    slots_[hole] = nullptr;
    size_--;
  }
  /** Calls `f(op)` for every op in flight. */
  template <typename F>
  void ForEach(F f) const {
    for (IoOp* op : slots_)
      if (op != nullptr) f(op);
  }
  void Clear() {
    slots_.assign(slots_.size(), nullptr);
    size_ = 0;
  }

 private:
  static constexpr size_t kInitial = 128;  // a depth-64 ring never grows it
  size_t Mask() const { return slots_.size() - 1; }
  // Fibonacci hashing: consecutive ids (as IoRing hands out) spread over the whole table.
  size_t Home(uint32_t id) const { return static_cast<size_t>((static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> 32) & Mask(); }
  void Place(IoOp* op) {
    size_t i = Home(op->id);
    while (slots_[i] != nullptr) i = (i + 1) & Mask();
    slots_[i] = op;
  }
  void Grow() {
    std::vector<IoOp*> old(slots_.size() * 2, nullptr);
    old.swap(slots_);
    for (IoOp* op : old)
      if (op != nullptr) Place(op);
  }
  std::vector<IoOp*> slots_;
  size_t size_ = 0;
};

}  // namespace orbitkv
