#pragma once
// Ownership of HDF5 C API identifiers, so every early return and exception closes what was opened,
// and a guard that silences HDF5's own error-stack printing where dgatd reports the failure itself
// as one line.

#include <hdf5.h>

#include <utility>

namespace dgatd::io::hdf5 {

class Handle {
public:
  using Closer = herr_t (*)(hid_t);

  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle const&) = delete;
  Handle& operator=(Handle const&) = delete;
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept
  {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now; returns false when HDF5 reports a failure (e.g. the final flush of a file).
  bool reset()
  {
    bool ok = true;
    if (id_ >= 0 && closer_) ok = closer_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return ok;
  }

private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

class QuietErrors {
public:
  QuietErrors()
  {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  QuietErrors(QuietErrors const&) = delete;
  QuietErrors& operator=(QuietErrors const&) = delete;
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

} // namespace dgatd::io::hdf5
