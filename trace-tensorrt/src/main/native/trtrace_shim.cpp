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
//                          incRefCount, decRefCount
//   IProgressMonitor   : + phaseStart, stepComplete, phaseFinish
//   IProfiler (not versioned): reportLayerTime, ~IProfiler
#include <jni.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <ctime>
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
// destructor; the preset's generated ILogger declares the same single @Virtual method. Used only by
// the emulation entry point below that measures TensorRT's logger-callback path into Java.
class ILogger {
 public:
  enum class Severity : int32_t { kINTERNAL_ERROR = 0, kERROR = 1, kWARNING = 2, kINFO = 3, kVERBOSE = 4 };
  virtual void log(Severity severity, char const* msg) noexcept = 0;
  virtual ~ILogger() = default;
};

class IProfiler {
 public:
  virtual void reportLayerTime(char const* layerName, float ms) noexcept = 0;
  virtual ~IProfiler() noexcept {}
};

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
// bounded buffer; samples arriving while it is full are counted and dropped.
class ShimProfiler final : public nvinfer1::IProfiler {
 public:
  explicit ShimProfiler(int32_t capacity) : capacity_(static_cast<size_t>(capacity)) {
    ids_.reserve(capacity_);
    ms_.reserve(capacity_);
  }

  void reportLayerTime(char const* layerName, float ms) noexcept override {
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
  std::vector<int32_t> ids_;
  std::vector<float> ms_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int32_t> index_;
  int64_t overflow_ = 0;
};

// ---------------------------------------------------------------------------------------------------
// IErrorRecorder: keeps (code, description, time) until drained from Java or cleared. TensorRT holds a
// reference count while the recorder is attached; the Java owner frees it only at count zero.
struct RecordedError {
  int32_t code;
  std::string desc;
  int64_t epochMicros;
};

class ShimErrorRecorder final : public nvinfer1::IErrorRecorder {
 public:
  explicit ShimErrorRecorder(int32_t capacity) : capacity_(static_cast<size_t>(capacity)) {}

  int32_t getNbErrors() const noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int32_t>(errors_.size());
  }

  nvinfer1::ErrorCode getErrorCode(int32_t errorIdx) const noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (errorIdx < 0 || static_cast<size_t>(errorIdx) >= errors_.size()) {
      return nvinfer1::ErrorCode::kINVALID_ARGUMENT;
    }
    return static_cast<nvinfer1::ErrorCode>(errors_[static_cast<size_t>(errorIdx)].code);
  }

  // The pointer stays valid until the next drain or clear.
  char const* getErrorDesc(int32_t errorIdx) const noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (errorIdx < 0 || static_cast<size_t>(errorIdx) >= errors_.size()) {
      return "trtrace: error index out of range";
    }
    return errors_[static_cast<size_t>(errorIdx)].desc.c_str();
  }

  bool hasOverflowed() const noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    return overflow_ > 0;
  }

  void clear() noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    errors_.clear();
    overflow_ = 0;
  }

  // Like TensorRT's samples, every reported error is treated as fatal for the current call.
  bool reportError(nvinfer1::ErrorCode val, char const* desc) noexcept override {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      reported_++;
      if (errors_.size() >= capacity_) {
        overflow_++;
      } else {
        errors_.push_back(RecordedError{static_cast<int32_t>(val), safeString(desc, kMaxDescLength), epochMicros()});
      }
    } catch (...) {
      overflow_++;
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
  std::vector<RecordedError> errors_;
  int64_t overflow_ = 0;
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
  std::vector<ProgressEvent> events_;
  int64_t overflow_ = 0;
  std::atomic<bool> cancelled_{false};
};

ShimProfiler* profiler(jlong h) {
  return static_cast<ShimProfiler*>(reinterpret_cast<nvinfer1::IProfiler*>(h));
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

#define JNI_SHIM(name) Java_io_github_trtrace_tensorrt_shim_ShimNative_##name

// ----------------------------------------- profiler ------------------------------------------------
TRTRACE_EXPORT jlong JNICALL JNI_SHIM(profilerCreate)(JNIEnv*, jclass, jint capacity) {
  auto* p = new (std::nothrow) ShimProfiler(capacity);
  return reinterpret_cast<jlong>(static_cast<nvinfer1::IProfiler*>(p));
}

TRTRACE_EXPORT void JNICALL JNI_SHIM(profilerFree)(JNIEnv*, jclass, jlong h) { delete profiler(h); }

TRTRACE_EXPORT void JNICALL JNI_SHIM(deleteTensorRtObject)(JNIEnv*, jclass, jlong address) {
  if (address != 0) {
    delete reinterpret_cast<nvinfer1::INoCopy*>(address);
  }
}

// Moves up to ids.length samples into (ids, ms); returns the names with ID >= knownNames;
// counts[0] = samples moved, counts[1] = samples dropped since the last drain, counts[2] = samples left.
TRTRACE_EXPORT jobjectArray JNICALL JNI_SHIM(profilerDrain)(JNIEnv* env, jclass, jlong h, jint knownNames,
                                                            jintArray ids, jfloatArray ms, jlongArray counts) {
  ShimProfiler* p = profiler(h);
  std::lock_guard<std::mutex> lock(p->mutex_);
  jsize room = std::min(env->GetArrayLength(ids), env->GetArrayLength(ms));
  size_t n = std::min(static_cast<size_t>(room), p->ids_.size());
  env->SetIntArrayRegion(ids, 0, static_cast<jsize>(n), p->ids_.data());
  env->SetFloatArrayRegion(ms, 0, static_cast<jsize>(n), p->ms_.data());
  p->ids_.erase(p->ids_.begin(), p->ids_.begin() + static_cast<std::ptrdiff_t>(n));
  p->ms_.erase(p->ms_.begin(), p->ms_.begin() + static_cast<std::ptrdiff_t>(n));
  jlong out[3] = {static_cast<jlong>(n), p->overflow_, static_cast<jlong>(p->ids_.size())};
  p->overflow_ = 0;
  env->SetLongArrayRegion(counts, 0, 3, out);
  size_t from = static_cast<size_t>(std::max(0, static_cast<int>(knownNames)));
  size_t total = p->names_.size();
  size_t fresh = total > from ? total - from : 0;
  jclass stringClass = env->FindClass("java/lang/String");
  jobjectArray names = env->NewObjectArray(static_cast<jsize>(fresh), stringClass, nullptr);
  if (names == nullptr) {
    return nullptr;
  }
  for (size_t i = 0; i < fresh; i++) {
    jstring s = utf(env, p->names_[from + i]);
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

// Moves up to codes.length errors out; stats[0] = moved, stats[1] = dropped since the last drain,
// stats[2] = errors reported in total.
TRTRACE_EXPORT jint JNICALL JNI_SHIM(recorderDrain)(JNIEnv* env, jclass, jlong h, jintArray codes,
                                                    jlongArray micros, jobjectArray descs, jlongArray stats) {
  ShimErrorRecorder* r = recorder(h);
  std::lock_guard<std::mutex> lock(r->mutex_);
  size_t room = static_cast<size_t>(std::min(env->GetArrayLength(codes), env->GetArrayLength(micros)));
  room = std::min(room, static_cast<size_t>(env->GetArrayLength(descs)));
  size_t n = std::min(room, r->errors_.size());
  for (size_t i = 0; i < n; i++) {
    RecordedError const& e = r->errors_[i];
    jint code = e.code;
    jlong us = e.epochMicros;
    env->SetIntArrayRegion(codes, static_cast<jsize>(i), 1, &code);
    env->SetLongArrayRegion(micros, static_cast<jsize>(i), 1, &us);
    jstring s = utf(env, e.desc);
    env->SetObjectArrayElement(descs, static_cast<jsize>(i), s);
    env->DeleteLocalRef(s);
  }
  r->errors_.erase(r->errors_.begin(), r->errors_.begin() + static_cast<std::ptrdiff_t>(n));
  jlong out[3] = {static_cast<jlong>(n), r->overflow_, r->reported_};
  r->overflow_ = 0;
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
// stats[0] = moved, stats[1] = dropped since the last drain.
TRTRACE_EXPORT jint JNICALL JNI_SHIM(monitorDrain)(JNIEnv* env, jclass, jlong h, jintArray types, jintArray values,
                                                   jlongArray nanos, jobjectArray phases, jobjectArray parents,
                                                   jlongArray stats) {
  ShimProgressMonitor* m = monitor(h);
  std::lock_guard<std::mutex> lock(m->mutex_);
  size_t room = static_cast<size_t>(std::min(env->GetArrayLength(types), env->GetArrayLength(values)));
  room = std::min(room, static_cast<size_t>(std::min(env->GetArrayLength(nanos), env->GetArrayLength(phases))));
  room = std::min(room, static_cast<size_t>(env->GetArrayLength(parents)));
  size_t n = std::min(room, m->events_.size());
  for (size_t i = 0; i < n; i++) {
    ProgressEvent const& e = m->events_[i];
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
  m->events_.erase(m->events_.begin(), m->events_.begin() + static_cast<std::ptrdiff_t>(n));
  jlong out[2] = {static_cast<jlong>(n), m->overflow_};
  m->overflow_ = 0;
  env->SetLongArrayRegion(stats, 0, 2, out);
  return static_cast<jint>(n);
}

// ----------------------------------------- TensorRT emulation ---------------------------------------
// These entry points call the objects ONLY through the abstract TensorRT interfaces (their vtables),
// exactly as libnvinfer does, so tests and self checks exercise the same dispatch TensorRT uses.
#define JNI_EMU(name) Java_io_github_trtrace_tensorrt_shim_TensorRtEmulator_##name

// Calls logger->log(severity, msg) `calls` times from this (native) frame, as libnvinfer does when it
// logs, and returns the elapsed nanoseconds: the cost of one callback into a Java ILogger.
TRTRACE_EXPORT jlong JNICALL JNI_EMU(logCalls0)(JNIEnv* env, jclass, jlong h, jint severity, jstring msg,
                                               jint calls) {
  auto* logger = reinterpret_cast<nvinfer1::ILogger*>(h);
  JStr m(env, msg);
  std::string text = m.get() ? m.get() : "";
  int64_t t0 = monotonicNanos();
  for (jint i = 0; i < calls; i++) {
    logger->log(static_cast<nvinfer1::ILogger::Severity>(severity), text.c_str());
  }
  return static_cast<jlong>(monotonicNanos() - t0);
}

TRTRACE_EXPORT void JNICALL JNI_EMU(reportLayerTimes)(JNIEnv* env, jclass, jlong h, jobjectArray names,
                                                      jfloatArray ms, jint rounds) {
  auto* p = reinterpret_cast<nvinfer1::IProfiler*>(h);
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
  for (jint r = 0; r < rounds; r++) {
    for (jsize i = 0; i < n; i++) {
      p->reportLayerTime(cnames[static_cast<size_t>(i)].c_str(), times[static_cast<size_t>(i)]);
    }
  }
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
