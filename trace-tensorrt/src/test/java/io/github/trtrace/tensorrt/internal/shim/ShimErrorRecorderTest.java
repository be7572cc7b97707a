package io.github.trtrace.tensorrt.internal.shim;

import io.github.trtrace.tensorrt.model.log.RecordedError;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

@EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64"})
class ShimErrorRecorderTest {
  // Real description from shared/fixtures/trt-10.15.1-h200-error-recorder-shim.log
  private static final String BUILD_ERROR = "IBuilder::buildSerializedNetwork: Error Code 6: API Usage Error (Unable to"
      + " load library: libnvinfer_builder_resource_sm90.so.10.15.1: libnvinfer_builder_resource_sm90.so.10.15.1:"
      + " cannot open shared object file: No such file or directory In Impl at /_src/runtime/dispatch/libLoader.cpp:304)";

  @Test
  void reportedErrorsAreVisibleThroughTheVtableAndDrainedWithCodeNames() {
    try (ShimErrorRecorder r = ShimErrorRecorder.create()) {
      long before = System.currentTimeMillis() * 1000;
      assertThat(TensorRtEmulator.reportError(r, 6, BUILD_ERROR)).isTrue();
      assertThat(TensorRtEmulator.reportError(r, 1, "deserialize failed")).isTrue();
      assertThat(TensorRtEmulator.getNbErrors(r)).isEqualTo(2);
      assertThat(TensorRtEmulator.getErrorCode(r, 0)).isEqualTo(6);
      assertThat(TensorRtEmulator.getErrorDesc(r, 0)).isEqualTo(BUILD_ERROR);
      assertThat(TensorRtEmulator.getErrorCode(r, 1)).isEqualTo(1);

      List<RecordedError> errors = r.drain();
      assertThat(errors).extracting(RecordedError::code).containsExactly(6, 1);
      assertThat(errors).extracting(RecordedError::codeName).containsExactly("kFAILED_INITIALIZATION", "kUNSPECIFIED_ERROR");
      assertThat(errors.get(0).description()).isEqualTo(BUILD_ERROR);
      assertThat(errors.get(0).epochMicros()).isGreaterThanOrEqualTo(before - 1_000_000);
      assertThat(TensorRtEmulator.getNbErrors(r)).as("a drain leaves TensorRT's view alone").isEqualTo(2);
      assertThat(r.drain()).isEmpty();
      assertThat(r.reportedErrors()).isEqualTo(2);
      r.clear();
      assertThat(TensorRtEmulator.getNbErrors(r)).isZero();
    }
  }

  @Test
  void everyDrainReturnsOnlyTheErrorsSinceThePreviousOneThoughItsBuffersAreReused() {
    try (ShimErrorRecorder r = ShimErrorRecorder.create(4)) {
      assertThat(r.drain()).isEmpty();
      TensorRtEmulator.reportError(r, 6, "first");
      TensorRtEmulator.reportError(r, 1, "second");
      assertThat(r.drain()).extracting(RecordedError::description).containsExactly("first", "second");
      assertThat(r.drain()).isEmpty();
      TensorRtEmulator.reportError(r, 2, "third");
      assertThat(r.drain()).extracting(RecordedError::code, RecordedError::description)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(2, "third"));
      for (int i = 0; i < 6; i++) {
        TensorRtEmulator.reportError(r, 2, "e" + i); // 4 kept, 2 over the capacity
      }
      assertThat(r.drain()).extracting(RecordedError::description).containsExactly("e0", "e1", "e2", "e3");
      assertThat(r.droppedErrors()).isEqualTo(2);
      assertThat(r.drain()).isEmpty();
      assertThat(r.droppedErrors()).as("counted up to the last drain").isEqualTo(2);
      assertThat(r.reportedErrors()).isEqualTo(9);
    }
  }

  @Test
  void outOfRangeIndexesAnswerWithoutCrashing() {
    try (ShimErrorRecorder r = ShimErrorRecorder.create()) {
      assertThat(TensorRtEmulator.getErrorCode(r, 5)).isEqualTo(3);
      assertThat(TensorRtEmulator.getErrorDesc(r, -1)).contains("out of range");
    }
  }

  @Test
  void overflowIsReportedAndCountedAndClearResetsTensorRtsViewOnly() {
    try (ShimErrorRecorder r = ShimErrorRecorder.create(2)) {
      for (int i = 0; i < 5; i++) {
        TensorRtEmulator.reportError(r, 2, "e" + i);
      }
      assertThat(TensorRtEmulator.hasOverflowed(r)).isTrue();
      assertThat(TensorRtEmulator.getNbErrors(r)).isEqualTo(2);
      TensorRtEmulator.clear(r);
      assertThat(TensorRtEmulator.hasOverflowed(r)).isFalse();
      assertThat(TensorRtEmulator.getNbErrors(r)).isZero();
      // TensorRT's clear() must not lose what Java has not drained yet
      assertThat(r.drain()).extracting(RecordedError::description).containsExactly("e0", "e1");
      assertThat(r.droppedErrors()).isEqualTo(3);

      for (int i = 0; i < 3; i++) {
        TensorRtEmulator.reportError(r, 2, "f" + i);
      }
      assertThat(r.drain()).extracting(RecordedError::description).containsExactly("f0", "f1");
      assertThat(r.droppedErrors()).isEqualTo(4);
      assertThat(r.reportedErrors()).isEqualTo(8);
    }
  }

  @Test
  void getErrorDescPointersStayValidAcrossDrainsAndLaterReportsUntilClear() {
    try (ShimErrorRecorder r = ShimErrorRecorder.create(256)) {
      // short descriptions live inside the std::string object itself: moving the element moves the text
      TensorRtEmulator.reportError(r, 6, "first");
      TensorRtEmulator.reportError(r, 1, "second");
      long first = TensorRtEmulator.getErrorDescAddress(r, 0);
      long second = TensorRtEmulator.getErrorDescAddress(r, 1);
      assertThat(r.drain()).hasSize(2);
      for (int i = 0; i < 200; i++) { // enough to regrow any vector several times
        TensorRtEmulator.reportError(r, 2, "later " + i);
      }
      r.drain();
      assertThat(TensorRtEmulator.getNbErrors(r)).as("TensorRT's view keeps every error until clear()").isEqualTo(202);
      assertThat(TensorRtEmulator.getErrorDesc(r, 0)).isEqualTo("first");
      assertThat(TensorRtEmulator.getErrorDescAddress(r, 0)).as("element never moved").isEqualTo(first);
      assertThat(TensorRtEmulator.getErrorDescAddress(r, 1)).isEqualTo(second);
      assertThat(TensorRtEmulator.readCString(first)).isEqualTo("first");
      assertThat(TensorRtEmulator.readCString(second)).isEqualTo("second");
      r.clear();
      assertThat(TensorRtEmulator.getNbErrors(r)).isZero();
    }
  }

  @Test
  void referenceCountFollowsIncAndDecAndNeverGoesNegative() {
    try (ShimErrorRecorder r = ShimErrorRecorder.create()) {
      assertThat(TensorRtEmulator.incRefCount(r)).isEqualTo(1);
      assertThat(TensorRtEmulator.incRefCount(r)).isEqualTo(2);
      assertThat(r.refCount()).isEqualTo(2);
      assertThat(TensorRtEmulator.decRefCount(r)).isEqualTo(1);
      assertThat(TensorRtEmulator.decRefCount(r)).isZero();
      assertThat(TensorRtEmulator.decRefCount(r)).isZero();
    }
  }

  @Test
  void closeWhileTensorRtHoldsAReferenceKeepsTheNativeObject() {
    ShimErrorRecorder r = ShimErrorRecorder.create();
    long address = r.address();
    TensorRtEmulator.incRefCount(r);
    r.close();
    // still allocated: the reference count is readable through the raw address
    assertThat(ShimNative.recorderRefCount(address)).isEqualTo(1);
  }

  @Test
  void interfaceInfoIsTensorRtsErrorRecorderVersion() {
    try (ShimErrorRecorder r = ShimErrorRecorder.create()) {
      assertThat(TensorRtEmulator.interfaceInfo(r)).isEqualTo("IErrorRecorder 1.0");
    }
  }

  @Test
  void codeNamesFollowTensorRtsErrorCodeEnum() {
    assertThat(RecordedError.codeName(0)).isEqualTo("kSUCCESS");
    assertThat(RecordedError.codeName(10)).isEqualTo("kUNSUPPORTED_STATE");
    assertThat(RecordedError.codeName(11)).isEqualTo("UNKNOWN(11)");
    assertThat(RecordedError.codeName(-1)).isEqualTo("UNKNOWN(-1)");
  }
}
