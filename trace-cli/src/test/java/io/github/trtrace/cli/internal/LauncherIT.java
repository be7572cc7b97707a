package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code trtrace} launcher in the repository root, run with bash against the packaged jar. */
class LauncherIT {
  static final Path SCRIPT = Path.of("..", "trtrace").toAbsolutePath().normalize();

  @TempDir Path dir;

  private Cli bash(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":/usr/bin:/bin");
    pb.environment().putAll(env);
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Cli(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void runsTheJarFromAnyDirectoryAndReadsTheDefaultLogsDirectory() throws Exception {
    assertThat(Path.of("target", "trtrace-cli.jar")).exists();
    Files.createDirectories(dir.resolve("logs"));
    new SyntheticLog(1, true).write(dir.resolve("logs").resolve("inference.log"), 500);
    Cli r = bash(Map.of(), "stats");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("trtrace stats: 500 lines in 1 file: 500 records", "Latency by model and status");
    Cli find = bash(Map.of(), "find", "api-demo-3");
    assertThat(find.code()).isZero();
    assertThat(find.out()).startsWith("request api-demo-3 ");
    assertThat(bash(Map.of(), "find", "api-demo-3000").code()).isEqualTo(1);
    assertThat(bash(Map.of(), "--version").out()).startsWith("trtrace 0.1.0");
  }

  @Test
  void explainsASlowRequestFromTheRealTracersLogsThroughTheScript() throws Exception {
    Path logs = Files.createDirectories(dir.resolve("logs"));
    BatchedLog log = new BatchedLog(logs, 0);
    Cli r = bash(Map.of(), "explain", BatchedLog.VICTIM);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("req-victim was slow: TPOT ", ExplainCommandTest.expectedNeighbours(log),
        "waited " + Fmt.ms(log.victimSlotWaitMs) + " for a batch slot", "preempted once (KV cache full)",
        "all " + log.victimLaunches + " of its launches found");
    Cli fast = bash(Map.of(), "explain", BatchedLog.FAST, "logs/");
    assertThat(fast.out()).contains("req-fast-3 was not slow, nothing to explain");
    Cli missing = bash(Map.of(), "explain", "req-nobody");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("request req-nobody not found");
  }

  @Test
  void saysHowToBuildTheJarWhenItIsMissing() throws Exception {
    Cli r = bash(Map.of("TRTRACE_JAR", dir.resolve("none.jar").toString()), "stats");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("none.jar is missing. Build it first", "mvn -B -ntp -pl trace-cli -am -DskipTests package");
  }
}
