package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

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
  void withoutAnOverrideItFollowsStderrOnly() {
    assertThat(Progress.enabled(null, "/dev/pts/3")).isTrue();
    assertThat(Progress.enabled(null, "/dev/tty1")).isTrue();
    // stderr redirected: 2> err.txt, 2>&1 | less, 2> /dev/null
    assertThat(Progress.enabled(null, "/home/u/err.txt")).isFalse();
    assertThat(Progress.enabled(null, "pipe:[48213]")).isFalse();
    assertThat(Progress.enabled(null, "/dev/null")).isFalse();
    // not Linux, or /proc unreadable: off
    assertThat(Progress.enabled(null, null)).isFalse();
  }

  @Test
  void progressAndNoProgressOverrideWhatStderrIs() {
    assertThat(Progress.enabled(true, "pipe:[48213]")).isTrue();
    assertThat(Progress.enabled(true, null)).isTrue();
    assertThat(Progress.enabled(false, "/dev/pts/3")).isFalse();
  }

  @Test
  void theForkedTestJvmsStderrIsSeenAndIsNotATerminal() {
    // surefire's fork writes stderr to a pipe or file (Linux here): its target is read, and it is no terminal
    String target = Progress.stderrTarget();
    assertThat(target).isNotNull().doesNotStartWith("/dev/pts/").doesNotStartWith("/dev/tty");
    assertThat(Progress.enabled(null, target)).isFalse();
  }

  @Test
  void theOptionIsTriState() {
    StatsCommand absent = new StatsCommand();
    new CommandLine(absent).parseArgs("x.jsonl");
    StatsCommand on = new StatsCommand();
    new CommandLine(on).parseArgs("--progress", "x.jsonl");
    StatsCommand off = new StatsCommand();
    new CommandLine(off).parseArgs("--no-progress", "x.jsonl");
    assertThat(absent.progress).isNull();
    assertThat(on.progress).isTrue();
    assertThat(off.progress).isFalse();
  }

  @Test
  void theHelpSaysTheBarFollowsStderrAndHowToOverrideIt() {
    Cli help = Cli.run("stats", "--help");
    assertThat((help.out() + help.err()).replaceAll("\\s+", " ")).contains("--[no-]progress", "stderr is a", "/proc/self/fd/2", "--no-progress never");
  }
}
