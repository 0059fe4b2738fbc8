// A mutex the compiler can check (LevelDB's port::Mutex, Abseil's Mutex): clang's -Wthread-safety
// verifies that every member marked OG_GUARDED_BY(mu_) is touched only while mu_ is held, which
// std::mutex (unannotated in libstdc++) cannot give. Mutex is BasicLockable, so
// std::condition_variable_any can wait on it. Thread-safe; not recursive.
#pragma once

#include <mutex>
#include <shared_mutex>

#include "common/check.h"

namespace omnigraph {

class OG_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() OG_ACQUIRE() { mu_.lock(); }
  void Unlock() OG_RELEASE() { mu_.unlock(); }
  // BasicLockable spelling, for std::condition_variable_any.
  void lock() OG_ACQUIRE() { mu_.lock(); }
  void unlock() OG_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Holds `mu` for its scope.
class OG_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) OG_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() OG_RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A reader/writer mutex: many readers or one writer.
class OG_CAPABILITY("mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() OG_ACQUIRE() { mu_.lock(); }
  void Unlock() OG_RELEASE() { mu_.unlock(); }
  void LockShared() OG_ACQUIRE_SHARED() { mu_.lock_shared(); }
  void UnlockShared() OG_RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds `mu` shared (reads) for its scope.
class OG_SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex* mu) OG_ACQUIRE_SHARED(mu) : mu_(mu) { mu_->LockShared(); }
  ~ReaderLock() OG_RELEASE_GENERIC() { mu_->UnlockShared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds `mu` exclusively (writes) for its scope.
class OG_SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(SharedMutex* mu) OG_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~WriterLock() OG_RELEASE() { mu_->Unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  SharedMutex* const mu_;
};

}  // namespace omnigraph
