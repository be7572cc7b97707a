package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, fault suite point 5: {@code StructuredTaskScope} forks on JDK 25 against the packaged
 * (multi-release) jar, where the context lives in a {@code ScopedValue}. {@code StructuredTaskScope} is a
 * preview API in JDK 25, so the forking program is compiled here with {@code --release 25
 * --enable-preview} and run in a child JVM with {@code --enable-preview} (strict context mode on).
 *
 * <p>What trtrace guarantees, and this asserts exactly:
 *
 * <ul>
 *   <li>inside {@code RequestContext.call}/{@code run} every fork sees the request ID in {@link
 *       RequestContext#current()} (the {@code ScopedValue} binding is inherited by forks);
 *   <li>trtrace does not write the MDC of a fork: with Logback (a {@code ThreadLocal} MDC) a plain fork has
 *       no {@code request_id}; a fork of a task wrapped with {@link RequestContext#wrap(java.util.concurrent.Callable)}
 *       has it (docs/tracing.md, "Context on other threads");
 *   <li>a scope made current by {@code open()} is a per-thread overlay, not inherited by plain forks;
 *       wrapped forks see it;
 *   <li>100 concurrent requests, each forking 20 subtasks: no subtask sees another request's ID.
 * </ul>
 *
 * Runs in trace-core's failsafe run on JDK 25 only (the preview API may change in later JDKs).
 */
class StructuredTaskScopeIT {
  private static final String PROGRAM = """
      import io.github.trtrace.core.context.RequestContext;
      import java.util.ArrayList;
      import java.util.List;
      import java.util.concurrent.Callable;
      import java.util.concurrent.StructuredTaskScope;
      import java.util.concurrent.StructuredTaskScope.Subtask;
      import org.slf4j.MDC;

      public class Forks {
        static String seen() {
          return RequestContext.current().requestId() + "|" + MDC.get("request_id");
        }

        static List<String> fork(int n, boolean wrapped) throws InterruptedException {
          try (var scope = StructuredTaskScope.open()) {
            List<Subtask<String>> tasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
              Callable<String> task = Forks::seen;
              tasks.add(scope.fork(wrapped ? RequestContext.wrap(task) : task));
            }
            scope.join();
            return tasks.stream().map(Subtask::get).toList();
          }
        }

        public static void main(String[] args) throws Exception {
          // the storage chosen is package-private (no public hook): read it reflectively, on the class path
          var get = Class.forName("io.github.trtrace.core.context.ContextStorages").getDeclaredMethod("get");
          get.setAccessible(true);
          var name = Class.forName("io.github.trtrace.core.context.ContextStorage").getDeclaredMethod("name");
          name.setAccessible(true);
          System.out.println("storage=" + name.invoke(get.invoke(null)));
          RequestContext.with("req-sts-call").call(() -> {
            System.out.println("call.parent=" + seen());
            System.out.println("call.plain=" + fork(4, false));
            System.out.println("call.wrapped=" + fork(4, true));
            return null;
          });
          try (RequestContext.Scope s = RequestContext.with("req-sts-open").open()) {
            System.out.println("open.plain=" + fork(4, false));
            System.out.println("open.wrapped=" + fork(4, true));
          }
          System.out.println("after=" + seen());
          List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
          try (var requests = StructuredTaskScope.open()) {
            for (int r = 0; r < 100; r++) {
              String id = "req-sts-" + r;
              requests.fork(() -> RequestContext.with(id).call(() -> {
                for (String s : fork(20, false)) {
                  if (!s.startsWith(id + "|")) wrong.add(id + " saw " + s);
                }
                for (String s : fork(20, true)) {
                  if (!s.equals(id + "|" + id)) wrong.add(id + " (wrapped) saw " + s);
                }
                return null;
              }));
            }
            requests.join();
          }
          System.out.println("crosstalk=" + wrong);
        }
      }
      """;

  @Test
  void forksSeeTheRequestIdAndTheDocumentedMdc(@TempDir Path dir) throws Exception {
    assumeTrue(Runtime.version().feature() == 25, "StructuredTaskScope is the JDK 25 preview API");
    String jar = System.getProperty("trtrace.test.packagedJar");
    assertThat(jar).as("system property trtrace.test.packagedJar (set by the failsafe run)").isNotNull();
    String classpath = String.join(File.pathSeparator, jar, locationOf(org.slf4j.MDC.class),
        locationOf(ch.qos.logback.classic.Logger.class), locationOf(ch.qos.logback.core.Appender.class));

    Path src = dir.resolve("Forks.java");
    Files.writeString(src, PROGRAM);
    Path out = dir.resolve("out");
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    int rc = ToolProvider.getSystemJavaCompiler().run(null, diagnostics, diagnostics,
        "--release", "25", "--enable-preview", "-Xlint:-preview", "-cp", classpath, "-d", out.toString(),
        src.toString());
    assertThat(rc).as(diagnostics.toString(StandardCharsets.UTF_8)).isZero();

    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p = new ProcessBuilder(java.toString(), "--enable-preview", "-Xmx256m",
            "-Dtrtrace.context.strict=true", "-cp", classpath + File.pathSeparator + out, "Forks")
        .redirectErrorStream(true)
        .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();

    List<String> lines = output.lines().toList();
    assertThat(lines).as(output)
        .contains("storage=scopedvalue")
        .contains("call.parent=req-sts-call|req-sts-call")
        // inherited ScopedValue binding; Logback's MDC is not carried into a plain fork
        .contains("call.plain=" + List.of("req-sts-call|null", "req-sts-call|null", "req-sts-call|null",
            "req-sts-call|null"))
        .contains("call.wrapped=" + List.of("req-sts-call|req-sts-call", "req-sts-call|req-sts-call",
            "req-sts-call|req-sts-call", "req-sts-call|req-sts-call"))
        // open() is a per-thread overlay: not inherited by plain forks, captured by wrap
        .contains("open.plain=" + List.of("null|null", "null|null", "null|null", "null|null"))
        .contains("open.wrapped=" + List.of("req-sts-open|req-sts-open", "req-sts-open|req-sts-open",
            "req-sts-open|req-sts-open", "req-sts-open|req-sts-open"))
        .contains("after=null|null")
        .contains("crosstalk=[]");
    assertThat(output).as("strict mode reports no leaked scope").doesNotContain("[strict]");
  }

  private static String locationOf(Class<?> c) {
    try {
      return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
