package io.github.trtrace.tensorrt.internal.shim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class NativeShimTest {

  @Test
  void linuxX8664IsTheOneSupportedPlatform() {
    assertThat(NativeShim.unsupportedPlatformMessage("Linux", "amd64")).isNull();
    assertThat(NativeShim.unsupportedPlatformMessage("Linux", "x86_64")).isNull();
  }

  @Test
  void otherPlatformsGetAMessageNamingThePlatform() {
    assertThat(NativeShim.unsupportedPlatformMessage("Mac OS X", "aarch64"))
        .startsWith("trtrace native shim is built for linux-x86_64 only; this is Mac OS X/aarch64");
    assertThat(NativeShim.unsupportedPlatformMessage("Linux", "aarch64")).contains("Linux/aarch64");
    assertThat(NativeShim.unsupportedPlatformMessage("Windows 11", "amd64")).contains("Windows 11/amd64");
  }

  @Test
  @EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64"})
  void loadsFromTheClassPathAndIsIdempotent() {
    assertThat(NativeShim.isSupportedPlatform()).isTrue();
    assertThatCode(NativeShim::load).doesNotThrowAnyException();
    assertThatCode(NativeShim::load).doesNotThrowAnyException();
  }
}
