// trtrace native shim, part two: NVTX ranges and C++ name demangling for kernel records.
//
// NVTX. No JavaCPP preset binds NVTX for CUDA 13: NVTX 3 is header-only, and CUDA 13 dropped libnvToolsExt.
// Both CUDA lines ship a C library that exports NVTX's C API for other languages: CUDA 13's libnvtx3interop.so
// and CUDA <= 12's libnvToolsExt.so.1. So the shim loads one of them at run time (dlopen) and looks the four
// functions up (dlsym): no NVTX header, no link-time dependency, and a process with neither library simply has
// NVTX off. Push/pop ranges (nvtxRangePushA/Pop) name a launch: Nsight Compute selects the kernels inside one
// with `ncu --nvtx --nvtx-include "trtrace launch 42/"`. Start/end ranges (nvtxRangeStartA/End) name a request:
// they may overlap (several requests share a launch), which push/pop ranges cannot; `--nvtx-include
// "trtrace request req-7"` selects them. Whether the ranges are emitted at all is decided in Java (Nvtx): only
// when a tool is attached, so a process without one pays nothing, not even the name's formatting.
//
// Demangling: CUPTI gives kernel names mangled (Itanium ABI); abi::__cxa_demangle of the statically linked
// libstdc++ makes them readable.

#include <jni.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#define TRTRACE_EXPORT extern "C" __attribute__((visibility("default"))) JNIEXPORT
#define JNI_NVTX(name) Java_io_github_trtrace_tensorrt_internal_shim_NvtxNative_##name

namespace {

typedef int (*PushFn)(const char*);
typedef int (*PopFn)();
typedef uint64_t (*StartFn)(const char*);
typedef void (*EndFn)(uint64_t);

PushFn push = nullptr;
PopFn pop = nullptr;
StartFn start = nullptr;
EndFn end = nullptr;

class Utf {
 public:
  Utf(JNIEnv* env, jstring s) : env_(env), s_(s), c_(s == nullptr ? nullptr : env->GetStringUTFChars(s, nullptr)) {}
  ~Utf() {
    if (c_ != nullptr) {
      env_->ReleaseStringUTFChars(s_, c_);
    }
  }
  const char* get() const { return c_; }

 private:
  JNIEnv* env_;
  jstring s_;
  const char* c_;
};

}  // namespace

// Loads the first library of `names` that opens and exports the four functions. Returns the library's index,
// or -1 (NVTX stays off). `missing` gets what went wrong for each library tried.
TRTRACE_EXPORT jint JNICALL JNI_NVTX(load)(JNIEnv* env, jclass, jobjectArray names, jobjectArray missing) {
  jsize n = env->GetArrayLength(names);
  for (jsize i = 0; i < n; i++) {
    jstring name = static_cast<jstring>(env->GetObjectArrayElement(names, i));
    Utf lib(env, name);
    void* h = lib.get() == nullptr ? nullptr : dlopen(lib.get(), RTLD_NOW | RTLD_LOCAL);
    std::string why;
    if (h == nullptr) {
      const char* e = dlerror();
      why = e == nullptr ? "cannot be opened" : e;
    } else {
      PushFn p = reinterpret_cast<PushFn>(dlsym(h, "nvtxRangePushA"));
      PopFn q = reinterpret_cast<PopFn>(dlsym(h, "nvtxRangePop"));
      StartFn s = reinterpret_cast<StartFn>(dlsym(h, "nvtxRangeStartA"));
      EndFn e = reinterpret_cast<EndFn>(dlsym(h, "nvtxRangeEnd"));
      if (p != nullptr && q != nullptr && s != nullptr && e != nullptr) {
        push = p;
        pop = q;
        start = s;
        end = e;
        env->DeleteLocalRef(name);
        return i;
      }
      why = "does not export nvtxRangePushA, nvtxRangePop, nvtxRangeStartA and nvtxRangeEnd";
      dlclose(h);
    }
    if (i < env->GetArrayLength(missing)) {
      jstring w = env->NewStringUTF(why.c_str());
      env->SetObjectArrayElement(missing, i, w);
      env->DeleteLocalRef(w);
    }
    env->DeleteLocalRef(name);
  }
  return -1;
}

TRTRACE_EXPORT void JNICALL JNI_NVTX(rangePush)(JNIEnv* env, jclass, jstring name) {
  if (push != nullptr) {
    Utf s(env, name);
    if (s.get() != nullptr) {
      push(s.get());
    }
  }
}

TRTRACE_EXPORT void JNICALL JNI_NVTX(rangePop)(JNIEnv*, jclass) {
  if (pop != nullptr) {
    pop();
  }
}

TRTRACE_EXPORT jlong JNICALL JNI_NVTX(rangeStart)(JNIEnv* env, jclass, jstring name) {
  if (start == nullptr) {
    return 0;
  }
  Utf s(env, name);
  return s.get() == nullptr ? 0 : static_cast<jlong>(start(s.get()));
}

TRTRACE_EXPORT void JNICALL JNI_NVTX(rangeEnd)(JNIEnv*, jclass, jlong id) {
  if (end != nullptr) {
    end(static_cast<uint64_t>(id));
  }
}

// The readable form of an Itanium-mangled name, or null when it is not one.
TRTRACE_EXPORT jstring JNICALL JNI_NVTX(demangle)(JNIEnv* env, jclass, jstring mangled) {
  Utf s(env, mangled);
  if (s.get() == nullptr) {
    return nullptr;
  }
  int status = 0;
  char* out = abi::__cxa_demangle(s.get(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) {
    std::free(out);
    return nullptr;
  }
  jstring r = env->NewStringUTF(out);
  std::free(out);
  return r;
}
