package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressTest {
  @Test
  void drawsABarOnceTheDelayHasPassedAndErasesItAtTheEnd() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Progress p = new Progress(true, new PrintStream(err, true, StandardCharsets.UTF_8), 1000, 0);
    p.bytes(500);
    p.tick(12_345);
    String drawn = err.toString(StandardCharsets.UTF_8);
    assertThat(drawn).startsWith("\r[###############...............]").contains(" 50 %", "12,345 lines", "lines/s");
    p.done();
    assertThat(err.toString(StandardCharsets.UTF_8)).endsWith("\r").hasSizeGreaterThan(drawn.length());
  }

  @Test
  void staysSilentWhenDisabledOrBeforeTheDelay() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(err, true, StandardCharsets.UTF_8);
    Progress off = new Progress(false, ps, 1000, 0);
    off.bytes(10);
    off.tick(1);
    off.done();
    Progress early = new Progress(true, ps, 1000, Progress.DELAY_NANOS);
    early.tick(1);
    early.done();
    assertThat(err.size()).isZero();
  }

  @Test
  void isOffWhenStdoutIsNotATerminal() {
    // surefire's forked JVM has no terminal: the CLI must not draw into redirected output
    assertThat(Progress.terminal()).isFalse();
  }
}
