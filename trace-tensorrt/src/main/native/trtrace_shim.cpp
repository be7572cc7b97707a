// trtrace native shim: C++ implementations of TensorRT's IProfiler, IErrorRecorder and IProgressMonitor
// that buffer events natively and are drained from Java in one JNI call per drain.
//
// No TensorRT header is used and libnvinfer is not linked. The classes below are declared ABI-compatible
// with TensorRT 10.15 (Itanium C++ ABI, g++ on linux-x86_64): a polymorphic class's vtable lists its
// virtual functions in declaration order, base class first, and a virtual destructor takes two slots
// (complete and deleting destructor). So only the ORDER and the SIGNATURES of the virtual functions
// matter, and they are taken from:
//   1. the JavaCPP preset org.bytedeco:tensorrt:10.15-1.5.13, whose generated classes list the methods
//      in header order (`javap -p -cp tensorrt-10.15-1.5.13.jar org.bytedeco.tensorrt.nvinfer.IErrorRecorder`
//      and likewise IVersionedInterface, IProgressMonitor, IProfiler, InterfaceInfo);
//   2. TensorRT 10.15's documented API (NvInferRuntimeBase.h / NvInferRuntime.h / NvInfer.h) for what
//      javap cannot show: the position of the virtual destructor, `const`/`noexcept`, the by-value return
//      of InterfaceInfo, ErrorCode being `enum class ErrorCode : int32_t`, and the InterfaceInfo values
//      {"IErrorRecorder", 1, 0} and {"IProgressMonitor", 1, 0}.
// The order was verified on an H200 with TensorRT 10.15.1 (see shared/DESIGN.md): TensorRT called
// incRefCount and reportError on this layout, and the preset's getNbErrors()/getInterfaceInfo()
// dispatched into it.
//
//   IVersionedInterface: getAPILanguage, getInterfaceInfo, ~IVersionedInterface
//   IErrorRecorder     : + getNbErrors, getErrorCode, getErrorDesc, hasOverflowed, clear, reportError,
//                          incRefCount, decRefCount                       (same in TensorRT 10 and 11)
//   IProgressMonitor   : + phaseStart, stepComplete, phaseFinish          (same in TensorRT 10 and 11)
//   IProfiler, TensorRT 10 (not versioned): reportLayerTime, ~IProfiler
//   IProfiler, TensorRT 11 (nvinfer1::v_1_0::IProfiler : IVersionedInterface):
//                          getAPILanguage, getInterfaceInfo {"IProfiler", 1, 0}, ~IVersionedInterface,
//                          reportLayerTime
//   ILogger, TensorRT 10: log, ~ILogger; TensorRT 11 (v_1_0::ILogger : IVersionedInterface):
//                          getAPILanguage, getInterfaceInfo {"ILogger", 1, 0}, ~IVersionedInterface, log
// TensorRT 11's layouts are taken from the preset org.bytedeco:tensorrt:11.2-1.5.14 (IProfiler and ILogger
// extend IVersionedInterface there, getInterfaceInfo then reportLayerTime / log) and NVIDIA's TensorRT 11
// class reference for nvinfer1::v_1_0::IProfiler (getInterfaceInfo inline override, reportLayerTime pure,
// ~IProfiler override). Which IProfiler layout a profiler has is chosen by the Java side from the loaded
// TensorRT's getInferLibVersion() (ShimProfiler); it is never guessed here.
#include <jni.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#define TRTRACE_EXPORT extern "C" __attribute__((visibility("default"))) JNIEXPORT

namespace nvinfer1 {

enum class APILanguage : int32_t { kCPP = 0, kPYTHON = 1 };
enum class ErrorCode : int32_t {
  kSUCCESS = 0, kUNSPECIFIED_ERROR = 1, kINTERNAL_ERROR = 2, kINVALID_ARGUMENT = 3, kINVALID_CONFIG = 4,
  kFAILED_ALLOCATION = 5, kFAILED_INITIALIZATION = 6, kFAILED_EXECUTION = 7, kFAILED_COMPUTATION = 8,
  kINVALID_STATE = 9, kUNSUPPORTED_STATE = 10
};

struct InterfaceInfo {
  char const* kind;
  int32_t major;
  int32_t minor;
};

class IVersionedInterface {
 public:
  virtual APILanguage getAPILanguage() const noexcept { return APILanguage::kCPP; }
  virtual InterfaceInfo getInterfaceInfo() const noexcept = 0;
  virtual ~IVersionedInterface() noexcept = default;
};

class IErrorRecorder : public IVersionedInterface {
 public:
  InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IErrorRecorder", 1, 0}; }
  virtual int32_t getNbErrors() const noexcept = 0;
  virtual ErrorCode getErrorCode(int32_t errorIdx) const noexcept = 0;
  virtual char const* getErrorDesc(int32_t errorIdx) const noexcept = 0;
  virtual bool hasOverflowed() const noexcept = 0;
  virtual void clear() noexcept = 0;
  virtual bool reportError(ErrorCode val, char const* desc) noexcept = 0;
  virtual int32_t incRefCount() noexcept = 0;
  virtual int32_t decRefCount() noexcept = 0;
};

class IProgressMonitor : public IVersionedInterface {
 public:
  InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IProgressMonitor", 1, 0}; }
  virtual void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept = 0;
  virtual bool stepComplete(char const* phaseName, int32_t step) noexcept = 0;
  virtual void phaseFinish(char const* phaseName) noexcept = 0;
};

// ILogger (NvInferRuntimeBase.h, TensorRT 10): log() is its first virtual method, then the
// destructor; the 10.15 preset's generated ILogger declares the same single @Virtual method. Used only by
// the emulation entry point below that measures TensorRT's logger-callback path into Java.
class ILogger {
 public:
  enum class Severity : int32_t { kINTERNAL_ERROR = 0, kERROR = 1, kWARNING = 2, kINFO = 3, kVERBOSE = 4 };
  virtual void log(Severity severity, char const* msg) noexcept = 0;
  virtual ~ILogger() = default;
};

// TensorRT 10's IProfiler: no base class.
class IProfiler {
 public:
  virtual void reportLayerTime(char const* layerName, float ms) noexcept = 0;
  virtual ~IProfiler() noexcept {}
};

// TensorRT 11 declares these in nvinfer1::v_1_0 (aliased to nvinfer1); the namespace name does not
// enter the vtable. Named v11 here because both generations live in one library.
namespace v11 {
class ILogger : public IVersionedInterface {
 public:
  InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"ILogger", 1, 0}; }
  virtual void log(nvinfer1::ILogger::Severity severity, char const* msg) noexcept = 0;
  ~ILogger() override = default;
};

class IProfiler : public IVersionedInterface {
 public:
  InterfaceInfo getInterfaceInfo() const noexcept override { return InterfaceInfo{"IProfiler", 1, 0}; }
  virtual void reportLayerTime(char const* layerName, float ms) noexcept = 0;
  ~IProfiler() override = default;
};
}  // namespace v11

// TensorRT 10's API objects (IBuilder, IRuntime, ICudaEngine, IExecutionContext, IHostMemory, ...)
// derive from INoCopy, whose only virtual member is its destructor (NvInferRuntimeBase.h); every
// other method is a non-virtual forwarder to an mImpl pointer. Deleting through INoCopy* therefore
// runs TensorRT's own deleting destructor, exactly as `delete context;` does in C++ (destroy() was
// removed in TensorRT 10). The JavaCPP preset offers no way to do this for objects TensorRT created.
class INoCopy {
 public:
  virtual ~INoCopy() = default;

 protected:
  INoCopy() = default;
};

}  // namespace nvinfer1

namespace {

// Same clocks as Java: CLOCK_MONOTONIC is System.nanoTime() on Linux, CLOCK_REALTIME the epoch.
int64_t monotonicNanos() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

int64_t epochMicros() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000LL + ts.tv_nsec / 1000;
}

std::string safeString(char const* s, size_t maxLen) {
  if (s == nullptr) {
    return std::string();
  }
  size_t n = strnlen(s, maxLen);
  return std::string(s, n);
}

constexpr size_t kMaxNameLength = 1024;
constexpr size_t kMaxDescLength = 4096;
constexpr int32_t kMaxLayerNames = 1 << 16;

// ---------------------------------------------------------------------------------------------------
// IProfiler: interns layer names (ID = index in the name table) and records (nameId, ms) pairs in a
// bounded buffer; samples arriving while it is full are counted and dropped. The buffer is shared by
// both ABI generations below; a drain swaps it out under the lock and copies into Java outside it.
class ProfilerBuffer {
 public:
  explicit ProfilerBuffer(int32_t capacity) : capacity_(static_cast<size_t>(capacity)) {
    ids_.reserve(capacity_);
    ms_.reserve(capacity_);
    drainIds_.reserve(capacity_);
    drainMs_.reserve(capacity_);
  }

  void report(char const* layerName, float ms) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      if (ids_.size() >= capacity_) {
        overflow_++;
        return;
      }
      std::string name = safeString(layerName, kMaxNameLength);
      auto it = index_.find(name);
      int32_t id;
      if (it != index_.end()) {
        id = it->second;
      } else {
        if (static_cast<int32_t>(names_.size()) >= kMaxLayerNames) {
          overflow_++;
          return;
        }
        id = static_cast<int32_t>(names_.size());
        names_.push_back(name);
        index_.emplace(std::move(name), id);
      }
      ids_.push_back(id);
      ms_.push_back(ms);
    } catch (...) {
      overflow_++;
    }
  }

  std::mutex mutex_;
  size_t capacity_;
  std::vector<int32_t> ids_;  // filled by TensorRT's threads, under mutex_
  std::vector<float> ms_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int32_t> index_;
  int64_t overflow_ = 0;
  // Owned by the drainer (Java serialises drains): what the last swap took out, and how far it was copied.
  std::vector<int32_t> drainIds_;
  std::vector<float> drainMs_;
  size_t drainPos_ = 0;
};

// Layout 10: nvinfer1::IProfiler of TensorRT 10.
class ShimProfiler10 final : public nvinfer1::IProfiler {
 public:
  explicit ShimProfiler10(int32_t capacity) : buffer(capacity) {}
  void reportLayerTime(char const* layerName, float ms) noexcept override { buffer.report(layerName, ms); }
  ProfilerBuffer buffer;
};

// Layout 11: nvinfer1::v_1_0::IProfiler of TensorRT 11 (versioned interface first).
class ShimProfiler11 final : public nvinfer1::v11::IProfiler {
 public:
  explicit ShimProfiler11(int32_t capacity) : buffer(capacity) {}
  void reportLayerTime(char const* layerName, float ms) noexcept override { buffer.report(layerName, ms); }
  ProfilerBuffer buffer;
};

constexpr int32_t kLayout10 = 10;
constexpr int32_t kLayout11 = 11;

// ---------------------------------------------------------------------------------------------------
// IErrorRecorder: two views of the reported errors.
//  - TensorRT's view (getNbErrors/getErrorCode/getErrorDesc): every error since the last clear(), in a
//    deque that only ever grows at the back until clear(). A deque's push_back never moves existing
//    elements, so a getErrorDesc pointer stays valid until clear(), as IErrorRecorder requires; drains
//    never touch this view.
//  - Java's view (drain): errors not drained yet. A drain swaps this buffer out under the lock and
//    converts it to Java objects after releasing it, so no JNI call runs while TensorRT's threads may be
//    waiting for the mutex. TensorRT's clear() does not discard errors Java has not drained yet.
// TensorRT holds a reference count while the recorder is attached; the Java owner frees it only at zero.
struct RecordedError {
  int32_t code;
  std::string desc;
  int64_t epochMicros;
};

class ShimErrorRecorder final : public nvinfer1::IErrorRecorder {
 public:
  explicit ShimErrorRecorder(int32_t capacity) : capacity_(static_cast<size_t>(capacity)) {
    pending_.reserve(capacity_);
  }

  int32_t getNbErrors() const noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int32_t>(visible_.size());
  }

  nvinfer1::ErrorCode getErrorCode(int32_t errorIdx) const noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (errorIdx < 0 || static_cast<size_t>(errorIdx) >= visible_.size()) {
      return nvinfer1::ErrorCode::kINVALID_ARGUMENT;
    }
    return static_cast<nvinfer1::ErrorCode>(visible_[static_cast<size_t>(errorIdx)].code);
  }

  // The pointer stays valid until clear() (or the recorder's destruction).
  char const* getErrorDesc(int32_t errorIdx) const noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (errorIdx < 0 || static_cast<size_t>(errorIdx) >= visible_.size()) {
      return "trtrace: error index out of range";
    }
    return visible_[static_cast<size_t>(errorIdx)].desc.c_str();
  }

  bool hasOverflowed() const noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    return visibleOverflow_;
  }

  void clear() noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    visible_.clear();
    visibleOverflow_ = false;
  }

  // Like TensorRT's samples, every reported error is treated as fatal for the current call.
  bool reportError(nvinfer1::ErrorCode val, char const* desc) noexcept override {
    try {
      RecordedError e{static_cast<int32_t>(val), safeString(desc, kMaxDescLength), epochMicros()};
      std::lock_guard<std::mutex> lock(mutex_);
      reported_++;
      if (pending_.size() < capacity_) {
        pending_.push_back(e);
      } else {
        dropped_++;
      }
      if (visible_.size() < capacity_) {
        visible_.push_back(std::move(e));
      } else {
        visibleOverflow_ = true;
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      dropped_++;
      visibleOverflow_ = true;
    }
    return true;
  }

  int32_t incRefCount() noexcept override { return refs_.fetch_add(1) + 1; }

  int32_t decRefCount() noexcept override {
    int32_t current = refs_.load();
    while (current > 0 && !refs_.compare_exchange_weak(current, current - 1)) {
    }
    return current > 0 ? current - 1 : 0;
  }

  mutable std::mutex mutex_;
  size_t capacity_;
  std::deque<RecordedError> visible_;   // TensorRT's view, until clear()
  bool visibleOverflow_ = false;
  std::vector<RecordedError> pending_;  // Java's view, until drained
  int64_t dropped_ = 0;
  int64_t reported_ = 0;
  std::atomic<int32_t> refs_{0};
};

// ---------------------------------------------------------------------------------------------------
// IProgressMonitor: records the phase tree as START/STEP/FINISH events; stepComplete returns false once
// Java asked to cancel, which makes TensorRT abandon the build.
enum EventType : int32_t { kPhaseStart = 0, kStepComplete = 1, kPhaseFinish = 2 };

struct ProgressEvent {
  int32_t type;
  int32_t value;  // nbSteps for START, step for STEP, 0 for FINISH
  int64_t nanos;
  std::string phase;
  std::string parent;
  bool hasParent;
};

class ShimProgressMonitor final : public nvinfer1::IProgressMonitor {
 public:
  explicit ShimProgressMonitor(int32_t capacity) : capacity_(static_cast<size_t>(capacity)) {}

  void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept override {
    add(kPhaseStart, phaseName, parentPhase, nbSteps);
  }

  bool stepComplete(char const* phaseName, int32_t step) noexcept override {
    add(kStepComplete, phaseName, nullptr, step);
    return !cancelled_.load();
  }

  void phaseFinish(char const* phaseName) noexcept override { add(kPhaseFinish, phaseName, nullptr, 0); }

  void add(int32_t type, char const* phase, char const* parent, int32_t value) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      if (events_.size() >= capacity_) {
        overflow_++;
        return;
      }
      events_.push_back(ProgressEvent{type, value, monotonicNanos(), safeString(phase, kMaxNameLength),
                                      safeString(parent, kMaxNameLength), parent != nullptr});
    } catch (...) {
      overflow_++;
    }
  }

  std::mutex mutex_;
  size_t capacity_;
  std::vector<ProgressEvent> events_;  // filled by TensorRT, under mutex_
  int64_t overflow_ = 0;
  std::atomic<bool> cancelled_{false};
  std::vector<ProgressEvent> drained_;  // owned by the drainer: what the last swap took out
  size_t drainPos_ = 0;
};

// A profiler handle is the address of the object as its TensorRT interface (what TensorRT is given);
// the Java side passes the layout it was created with.
ProfilerBuffer* profilerBuffer(jlong h, jint layout) {
  if (layout == kLayout11) {
    return &static_cast<ShimProfiler11*>(reinterpret_cast<nvinfer1::v11::IProfiler*>(h))->buffer;
  }
  return &static_cast<ShimProfiler10*>(reinterpret_cast<nvinfer1::IProfiler*>(h))->buffer;
}
ShimErrorRecorder* recorder(jlong h) {
  return static_cast<ShimErrorRecorder*>(reinterpret_cast<nvinfer1::IErrorRecorder*>(h));
}
ShimProgressMonitor* monitor(jlong h) {
  return static_cast<ShimProgressMonitor*>(reinterpret_cast<nvinfer1::IProgressMonitor*>(h));
}

jstring utf(JNIEnv* env, std::string const& s) {
  // TensorRT strings are ASCII in practice; NewStringUTF needs modified UTF-8, so replace other bytes.
  std::string clean(s);
  for (char& c : clean) {
    if (static_cast<unsigned char>(c) >= 0x80 || c == 0) {
      c = '?';
    }
  }
  return env->NewStringUTF(clean.c_str());
}

// RAII view of a Java string as modified UTF-8.
class JStr {
 public:
  JStr(JNIEnv* env, jstring s) : env_(env), s_(s), chars_(s ? env->GetStringUTFChars(s, nullptr) : nullptr) {}
  ~JStr() {
    if (chars_ != nullptr) {
      env_->ReleaseStringUTFChars(s_, chars_);
    }
  }
  char const* get() const { return chars_; }

 private:
  JNIEnv* env_;
  jstring s_;
  char const* chars_;
};

}  // namespace

#define JNI_SHIM(name) Java_io_github_trtrace_tensorrt_internal_shim_ShimNative_##name

// ----------------------------------------- profiler ------------------------------------------------
// layout: 10 (TensorRT 10's IProfiler) or 11 (TensorRT 11's versioned IProfiler); 0 for any other value.
TRTRACE_EXPORT jlong JNICALL JNI_SHIM(profilerCreate)(JNIEnv*, jclass, jint capacity, jint layout) {
  if (layout == kLayout11) {
    auto* p = new (std::nothrow) ShimProfiler11(capacity);
    return reinterpret_cast<jlong>(static_cast<nvinfer1::v11::IProfiler*>(p));
  }
  if (layout == kLayout10) {
    auto* p = new (std::nothrow) ShimProfiler10(capacity);
    return reinterpret_cast<jlong>(static_cast<nvinfer1::IProfiler*>(p));
  }
  return 0;
}

TRTRACE_EXPORT void JNICALL JNI_SHIM(profilerFree)(JNIEnv*, jclass, jlong h, jint layout) {
  if (layout == kLayout11) {
    delete static_cast<ShimProfiler11*>(reinterpret_cast<nvinfer1::v11::IProfiler*>(h));
  } else {
    delete static_cast<ShimProfiler10*>(reinterpret_cast<nvinfer1::IProfiler*>(h));
  }
}

TRTRACE_EXPORT void JNICALL JNI_SHIM(deleteTensorRtObject)(JNIEnv*, jclass, jlong address) {
  if (address != 0) {
    delete reinterpret_cast<nvinfer1::INoCopy*>(address);
  }
}

// Moves up to ids.length samples into (ids, ms); returns the names with ID >= knownNames;
// counts[0] = samples moved, counts[1] = samples dropped since the last drain, counts[2] = samples left
// in this drain's batch. When the batch taken by the previous call is used up, the buffer TensorRT fills is
// swapped out under the lock (no JNI call while holding it); copying into Java happens after unlocking.
TRTRACE_EXPORT jobjectArray JNICALL JNI_SHIM(profilerDrain)(JNIEnv* env, jclass, jlong h, jint layout,
                                                            jint knownNames, jintArray ids, jfloatArray ms,
                                                            jlongArray counts) {
  ProfilerBuffer* p = profilerBuffer(h, layout);
  int64_t dropped = 0;
  std::vector<std::string> fresh;
  size_t from = static_cast<size_t>(std::max(0, static_cast<int>(knownNames)));
  {
    std::lock_guard<std::mutex> lock(p->mutex_);
    if (p->drainPos_ >= p->drainIds_.size()) {
      p->drainIds_.clear();
      p->drainMs_.clear();
      p->drainPos_ = 0;
      p->drainIds_.swap(p->ids_);  // both keep their reserved capacity: no allocation under the lock
      p->drainMs_.swap(p->ms_);
    }
    dropped = p->overflow_;
    p->overflow_ = 0;
    for (size_t i = from; i < p->names_.size(); i++) {
      fresh.push_back(p->names_[i]);
    }
  }
  jsize room = std::min(env->GetArrayLength(ids), env->GetArrayLength(ms));
  size_t n = std::min(static_cast<size_t>(room), p->drainIds_.size() - p->drainPos_);
  env->SetIntArrayRegion(ids, 0, static_cast<jsize>(n), p->drainIds_.data() + p->drainPos_);
  env->SetFloatArrayRegion(ms, 0, static_cast<jsize>(n), p->drainMs_.data() + p->drainPos_);
  p->drainPos_ += n;
  jlong out[3] = {static_cast<jlong>(n), dropped, static_cast<jlong>(p->drainIds_.size() - p->drainPos_)};
  env->SetLongArrayRegion(counts, 0, 3, out);
  jclass stringClass = env->FindClass("java/lang/String");
  jobjectArray names = env->NewObjectArray(static_cast<jsize>(fresh.size()), stringClass, nullptr);
  if (names == nullptr) {
    return nullptr;
  }
  for (size_t i = 0; i < fresh.size(); i++) {
    jstring s = utf(env, fresh[i]);
    env->SetObjectArrayElement(names, static_cast<jsize>(i), s);
    env->DeleteLocalRef(s);
  }
  return names;
}

// ----------------------------------------- error recorder ------------------------------------------
TRTRACE_EXPORT jlong JNICALL JNI_SHIM(recorderCreate)(JNIEnv*, jclass, jint capacity) {
  auto* r = new (std::nothrow) ShimErrorRecorder(capacity);
  return reinterpret_cast<jlong>(static_cast<nvinfer1::IErrorRecorder*>(r));
}

TRTRACE_EXPORT void JNICALL JNI_SHIM(recorderFree)(JNIEnv*, jclass, jlong h) { delete recorder(h); }

TRTRACE_EXPORT jint JNICALL JNI_SHIM(recorderRefCount)(JNIEnv*, jclass, jlong h) { return recorder(h)->refs_.load(); }

TRTRACE_EXPORT void JNICALL JNI_SHIM(recorderClear)(JNIEnv*, jclass, jlong h) { recorder(h)->clear(); }

// Moves the errors not drained yet out (at most codes.length; the Java side passes arrays of the
// recorder's capacity, which bounds them); stats[0] = moved, stats[1] = dropped since the last drain,
// stats[2] = errors reported in total. TensorRT's view (getErrorDesc pointers) is left untouched.
TRTRACE_EXPORT jint JNICALL JNI_SHIM(recorderDrain)(JNIEnv* env, jclass, jlong h, jintArray codes,
                                                    jlongArray micros, jobjectArray descs, jlongArray stats) {
  ShimErrorRecorder* r = recorder(h);
  std::vector<RecordedError> batch;
  int64_t dropped;
  int64_t reported;
  bool any;
  {
    // The common case (a launch without errors, drained after every launch): nothing to move, so no
    // vector of capacity entries is allocated and freed.
    std::lock_guard<std::mutex> lock(r->mutex_);
    any = !r->pending_.empty();
    if (!any) {
      dropped = r->dropped_;
      r->dropped_ = 0;
      reported = r->reported_;
    }
  }
  if (any) {
    batch.reserve(r->capacity_);  // allocated before taking the lock
    std::lock_guard<std::mutex> lock(r->mutex_);
    batch.swap(r->pending_);  // the recorder keeps the reserved empty vector: no allocation under the lock
    dropped = r->dropped_;
    r->dropped_ = 0;
    reported = r->reported_;
  }
  size_t room = static_cast<size_t>(std::min(env->GetArrayLength(codes), env->GetArrayLength(micros)));
  room = std::min(room, static_cast<size_t>(env->GetArrayLength(descs)));
  size_t n = std::min(room, batch.size());
  dropped += static_cast<int64_t>(batch.size() - n);  // never happens with capacity-sized arrays; counted anyway
  for (size_t i = 0; i < n; i++) {
    RecordedError const& e = batch[i];
    jint code = e.code;
    jlong us = e.epochMicros;
    env->SetIntArrayRegion(codes, static_cast<jsize>(i), 1, &code);
    env->SetLongArrayRegion(micros, static_cast<jsize>(i), 1, &us);
    jstring s = utf(env, e.desc);
    env->SetObjectArrayElement(descs, static_cast<jsize>(i), s);
    env->DeleteLocalRef(s);
  }
  jlong out[3] = {static_cast<jlong>(n), dropped, reported};
  env->SetLongArrayRegion(stats, 0, 3, out);
  return static_cast<jint>(n);
}

// ----------------------------------------- progress monitor ----------------------------------------
TRTRACE_EXPORT jlong JNICALL JNI_SHIM(monitorCreate)(JNIEnv*, jclass, jint capacity) {
  auto* m = new (std::nothrow) ShimProgressMonitor(capacity);
  return reinterpret_cast<jlong>(static_cast<nvinfer1::IProgressMonitor*>(m));
}

TRTRACE_EXPORT void JNICALL JNI_SHIM(monitorFree)(JNIEnv*, jclass, jlong h) { delete monitor(h); }

TRTRACE_EXPORT void JNICALL JNI_SHIM(monitorSetCancelled)(JNIEnv*, jclass, jlong h, jboolean cancelled) {
  monitor(h)->cancelled_.store(cancelled == JNI_TRUE);
}

// Moves up to types.length events out; parents[i] is null where TensorRT passed no parent phase.
// stats[0] = moved, stats[1] = dropped since the last drain, stats[2] = left in this drain's batch.
// The buffer TensorRT fills is swapped out under the lock; JNI copies happen after unlocking.
TRTRACE_EXPORT jint JNICALL JNI_SHIM(monitorDrain)(JNIEnv* env, jclass, jlong h, jintArray types, jintArray values,
                                                   jlongArray nanos, jobjectArray phases, jobjectArray parents,
                                                   jlongArray stats) {
  ShimProgressMonitor* m = monitor(h);
  int64_t dropped;
  {
    std::lock_guard<std::mutex> lock(m->mutex_);
    if (m->drainPos_ >= m->drained_.size()) {
      m->drained_.clear();
      m->drainPos_ = 0;
      m->drained_.swap(m->events_);
    }
    dropped = m->overflow_;
    m->overflow_ = 0;
  }
  size_t room = static_cast<size_t>(std::min(env->GetArrayLength(types), env->GetArrayLength(values)));
  room = std::min(room, static_cast<size_t>(std::min(env->GetArrayLength(nanos), env->GetArrayLength(phases))));
  room = std::min(room, static_cast<size_t>(env->GetArrayLength(parents)));
  size_t n = std::min(room, m->drained_.size() - m->drainPos_);
  for (size_t i = 0; i < n; i++) {
    ProgressEvent const& e = m->drained_[m->drainPos_ + i];
    jint t = e.type;
    jint v = e.value;
    jlong ns = e.nanos;
    jsize at = static_cast<jsize>(i);
    env->SetIntArrayRegion(types, at, 1, &t);
    env->SetIntArrayRegion(values, at, 1, &v);
    env->SetLongArrayRegion(nanos, at, 1, &ns);
    jstring phase = utf(env, e.phase);
    env->SetObjectArrayElement(phases, at, phase);
    env->DeleteLocalRef(phase);
    if (e.hasParent) {
      jstring parent = utf(env, e.parent);
      env->SetObjectArrayElement(parents, at, parent);
      env->DeleteLocalRef(parent);
    } else {
      env->SetObjectArrayElement(parents, at, nullptr);
    }
  }
  m->drainPos_ += n;
  jlong out[3] = {static_cast<jlong>(n), dropped, static_cast<jlong>(m->drained_.size() - m->drainPos_)};
  env->SetLongArrayRegion(stats, 0, 3, out);
  return static_cast<jint>(n);
}

// ----------------------------------------- TensorRT emulation ---------------------------------------
// These entry points call the objects ONLY through the abstract TensorRT interfaces (their vtables),
// exactly as libnvinfer does, so tests and self checks exercise the same dispatch TensorRT uses.
#define JNI_EMU(name) Java_io_github_trtrace_tensorrt_internal_shim_TensorRtEmulator_##name

// Calls logger->log(severity, msg) `calls` times from this (native) frame, as libnvinfer does when it
// logs, and returns the elapsed nanoseconds: the cost of one callback into a Java ILogger. layout 11
// dispatches through TensorRT 11's versioned ILogger, 10 through TensorRT 10's; -1 for another layout.
TRTRACE_EXPORT jlong JNICALL JNI_EMU(logCalls0)(JNIEnv* env, jclass, jlong h, jint layout, jint severity, jstring msg,
                                               jint calls) {
  JStr m(env, msg);
  std::string text = m.get() ? m.get() : "";
  auto sev = static_cast<nvinfer1::ILogger::Severity>(severity);
  int64_t t0 = monotonicNanos();
  if (layout == kLayout11) {
    auto* logger = reinterpret_cast<nvinfer1::v11::ILogger*>(h);
    for (jint i = 0; i < calls; i++) {
      logger->log(sev, text.c_str());
    }
  } else if (layout == kLayout10) {
    auto* logger = reinterpret_cast<nvinfer1::ILogger*>(h);
    for (jint i = 0; i < calls; i++) {
      logger->log(sev, text.c_str());
    }
  } else {
    return -1;
  }
  return static_cast<jlong>(monotonicNanos() - t0);
}

TRTRACE_EXPORT void JNICALL JNI_EMU(reportLayerTimes)(JNIEnv* env, jclass, jlong h, jint layout, jobjectArray names,
                                                      jfloatArray ms, jint rounds) {
  jsize n = std::min(env->GetArrayLength(names), env->GetArrayLength(ms));
  std::vector<std::string> cnames;
  cnames.reserve(static_cast<size_t>(n));
  for (jsize i = 0; i < n; i++) {
    auto s = static_cast<jstring>(env->GetObjectArrayElement(names, i));
    JStr js(env, s);
    cnames.emplace_back(js.get() ? js.get() : "");
    env->DeleteLocalRef(s);
  }
  std::vector<float> times(static_cast<size_t>(n));
  env->GetFloatArrayRegion(ms, 0, n, times.data());
  auto* p10 = reinterpret_cast<nvinfer1::IProfiler*>(h);
  auto* p11 = reinterpret_cast<nvinfer1::v11::IProfiler*>(h);
  for (jint r = 0; r < rounds; r++) {
    for (jsize i = 0; i < n; i++) {
      char const* name = cnames[static_cast<size_t>(i)].c_str();
      float t = times[static_cast<size_t>(i)];
      if (layout == kLayout11) {
        p11->reportLayerTime(name, t);  // vtable slot 4: after the versioned-interface slots
      } else {
        p10->reportLayerTime(name, t);  // vtable slot 0
      }
    }
  }
}

// "kind major.minor" of a TensorRT 11 profiler through its IVersionedInterface slots.
TRTRACE_EXPORT jstring JNICALL JNI_EMU(profilerInterfaceInfo)(JNIEnv* env, jclass, jlong h) {
  nvinfer1::IVersionedInterface* v = reinterpret_cast<nvinfer1::v11::IProfiler*>(h);
  nvinfer1::InterfaceInfo info = v->getInterfaceInfo();
  std::string s = safeString(info.kind, 256) + " " + std::to_string(info.major) + "." + std::to_string(info.minor);
  if (v->getAPILanguage() != nvinfer1::APILanguage::kCPP) {
    s += " (not C++)";
  }
  return utf(env, s);
}

// "kind major.minor" of a TensorRT 11 ILogger (e.g. a JavaCPP ILogger subclass) through its slot 1, and its
// getAPILanguage() through slot 0, separately (so a failure says which slot).
TRTRACE_EXPORT jstring JNICALL JNI_EMU(loggerInterfaceInfo0)(JNIEnv* env, jclass, jlong h) {
  nvinfer1::IVersionedInterface* v = reinterpret_cast<nvinfer1::v11::ILogger*>(h);
  nvinfer1::InterfaceInfo info = v->getInterfaceInfo();
  return utf(env, safeString(info.kind, 256) + " " + std::to_string(info.major) + "." + std::to_string(info.minor));
}

TRTRACE_EXPORT jint JNICALL JNI_EMU(loggerApiLanguage0)(JNIEnv*, jclass, jlong h) {
  nvinfer1::IVersionedInterface* v = reinterpret_cast<nvinfer1::v11::ILogger*>(h);
  return static_cast<jint>(v->getAPILanguage());
}

// The raw getErrorDesc pointer (for checking it stays valid) and the C string at such an address.
TRTRACE_EXPORT jlong JNICALL JNI_EMU(getErrorDescAddress)(JNIEnv*, jclass, jlong h, jint i) {
  return reinterpret_cast<jlong>(reinterpret_cast<nvinfer1::IErrorRecorder*>(h)->getErrorDesc(i));
}

TRTRACE_EXPORT jstring JNICALL JNI_EMU(readCString0)(JNIEnv* env, jclass, jlong address) {
  return utf(env, safeString(reinterpret_cast<char const*>(address), kMaxDescLength));
}

TRTRACE_EXPORT jboolean JNICALL JNI_EMU(reportError)(JNIEnv* env, jclass, jlong h, jint code, jstring desc) {
  JStr d(env, desc);
  auto* r = reinterpret_cast<nvinfer1::IErrorRecorder*>(h);
  return r->reportError(static_cast<nvinfer1::ErrorCode>(code), d.get()) ? JNI_TRUE : JNI_FALSE;
}

TRTRACE_EXPORT jint JNICALL JNI_EMU(getNbErrors)(JNIEnv*, jclass, jlong h) {
  return reinterpret_cast<nvinfer1::IErrorRecorder*>(h)->getNbErrors();
}

TRTRACE_EXPORT jint JNICALL JNI_EMU(getErrorCode)(JNIEnv*, jclass, jlong h, jint i) {
  return static_cast<jint>(reinterpret_cast<nvinfer1::IErrorRecorder*>(h)->getErrorCode(i));
}

TRTRACE_EXPORT jstring JNICALL JNI_EMU(getErrorDesc)(JNIEnv* env, jclass, jlong h, jint i) {
  char const* d = reinterpret_cast<nvinfer1::IErrorRecorder*>(h)->getErrorDesc(i);
  return utf(env, safeString(d, kMaxDescLength));
}

TRTRACE_EXPORT jboolean JNICALL JNI_EMU(hasOverflowed)(JNIEnv*, jclass, jlong h) {
  return reinterpret_cast<nvinfer1::IErrorRecorder*>(h)->hasOverflowed() ? JNI_TRUE : JNI_FALSE;
}

TRTRACE_EXPORT void JNICALL JNI_EMU(clear)(JNIEnv*, jclass, jlong h) {
  reinterpret_cast<nvinfer1::IErrorRecorder*>(h)->clear();
}

TRTRACE_EXPORT jint JNICALL JNI_EMU(incRefCount)(JNIEnv*, jclass, jlong h) {
  return reinterpret_cast<nvinfer1::IErrorRecorder*>(h)->incRefCount();
}

TRTRACE_EXPORT jint JNICALL JNI_EMU(decRefCount)(JNIEnv*, jclass, jlong h) {
  return reinterpret_cast<nvinfer1::IErrorRecorder*>(h)->decRefCount();
}

// "kind major.minor" of an IVersionedInterface (error recorder or progress monitor).
TRTRACE_EXPORT jstring JNICALL JNI_EMU(interfaceInfo)(JNIEnv* env, jclass, jlong h, jboolean isRecorder) {
  nvinfer1::IVersionedInterface* v;
  if (isRecorder == JNI_TRUE) {
    v = reinterpret_cast<nvinfer1::IErrorRecorder*>(h);
  } else {
    v = reinterpret_cast<nvinfer1::IProgressMonitor*>(h);
  }
  nvinfer1::InterfaceInfo info = v->getInterfaceInfo();
  std::string s = safeString(info.kind, 256) + " " + std::to_string(info.major) + "." + std::to_string(info.minor);
  if (v->getAPILanguage() != nvinfer1::APILanguage::kCPP) {
    s += " (not C++)";
  }
  return utf(env, s);
}

TRTRACE_EXPORT void JNICALL JNI_EMU(phaseStart)(JNIEnv* env, jclass, jlong h, jstring phase, jstring parent,
                                                jint nbSteps) {
  JStr p(env, phase);
  JStr q(env, parent);
  reinterpret_cast<nvinfer1::IProgressMonitor*>(h)->phaseStart(p.get(), q.get(), nbSteps);
}

TRTRACE_EXPORT jboolean JNICALL JNI_EMU(stepComplete)(JNIEnv* env, jclass, jlong h, jstring phase, jint step) {
  JStr p(env, phase);
  return reinterpret_cast<nvinfer1::IProgressMonitor*>(h)->stepComplete(p.get(), step) ? JNI_TRUE : JNI_FALSE;
}

TRTRACE_EXPORT void JNICALL JNI_EMU(phaseFinish)(JNIEnv* env, jclass, jlong h, jstring phase) {
  JStr p(env, phase);
  reinterpret_cast<nvinfer1::IProgressMonitor*>(h)->phaseFinish(p.get());
}
