package io.github.trtrace.tensorrt.log;

import io.github.trtrace.tensorrt.model.log.TrtErrorCode;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import static org.assertj.core.api.Assertions.assertThat;

import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.ILogger;
import org.junit.jupiter.api.Test;

/**
 * The pure-Java enums mirror TensorRT's numbers, which must not be trusted from memory: compare them by
 * name with the preset this build compiles against (one per Maven profile: 10.6, 10.15, 11.2). Only the
 * nested enum classes are touched, which does not load any native library.
 */
class PresetEnumsTest {

  @Test
  void errorCodesAreThePresetsErrorCodes() {
    for (TrtErrorCode c : TrtErrorCode.values()) {
      if (c != TrtErrorCode.UNKNOWN) {
        assertThat(nvinfer.ErrorCode.valueOf("k" + c.name()).value).as(c.name()).isEqualTo(c.code());
      }
    }
    assertThat(nvinfer.ErrorCode.values()).hasSize(TrtErrorCode.values().length - 1);
  }

  @Test
  void severitiesAreThePresetsLoggerSeverities() {
    for (TrtSeverity s : TrtSeverity.values()) {
      assertThat(ILogger.Severity.valueOf("k" + s.name()).value).as(s.name()).isEqualTo(s.code());
    }
    assertThat(ILogger.Severity.values()).hasSize(TrtSeverity.values().length);
  }
}
