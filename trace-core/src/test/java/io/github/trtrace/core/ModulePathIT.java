package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.fault.ChildJvm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged trace-core jar as a user's modular application sees it: a named module whose
 * internal packages (the shaded queue included) are part of it but not exported. A consumer module
 * compiles against the API, fails to compile against an internal class, and traces requests on the
 * module path. Runs in the integration-test phase, after {@code package} (shading).
 */
class ModulePathIT {

  @Test
  void thePackagedJarIsANamedModuleThatExportsNoInternalPackage() {
    ModuleReference ref = ModuleFinder.of(packagedJar()).findAll().iterator().next();
    ModuleDescriptor d = ref.descriptor();
    assertThat(d.name()).isEqualTo("io.github.trtrace.core");
    assertThat(d.isAutomatic()).isFalse();
    assertThat(d.packages()).contains("io.github.trtrace.core.internal.shaded.jctools.queues.atomic");
    assertThat(d.exports())
        .filteredOn(e -> e.source().contains(".internal"))
        .allMatch(ModuleDescriptor.Exports::isQualified);
  }

  @Test
  void aConsumerModuleCannotCompileAgainstAnInternalClass(@TempDir Path dir) throws IOException {
    Path src = consumer(dir, "import io.github.trtrace.core.internal.log.RateLimitedLogger;\n",
        "System.out.println(RateLimitedLogger.class);");
    Compilation c = compile(src, dir.resolve("out"));
    assertThat(c.ok()).as(c.diagnostics()).isFalse();
    assertThat(c.diagnostics()).contains("io.github.trtrace.core.internal").contains("not visible");
  }

  @Test
  void aConsumerModuleTracesRequestsOnTheModulePath(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("inference.log");
    Path src = consumer(dir, "import io.github.trtrace.core.InferenceTracer;\nimport java.nio.file.Path;\n", """
        try (InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(Path.of(args[0])).build()) {
          for (int i = 0; i < 100; i++) {
            tracer.run("m", t -> t.outputTokens(1));
          }
        }""");
    Path out = dir.resolve("out");
    Compilation c = compile(src, out);
    assertThat(c.ok()).as(c.diagnostics()).isTrue();

    String modulePath = String.join(java.io.File.pathSeparator, packagedJar().toString(), slf4jJar(), out.toString());
    Process p = new ProcessBuilder(ChildJvm.javaBinary().toString(), "-p", modulePath, "-m", "consumer/consumer.Main",
            log.toString())
        .redirectErrorStream(true)
        .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(Files.readAllLines(log)).hasSize(100);
  }

  private record Compilation(boolean ok, String diagnostics) {}

  /** A module {@code consumer} requiring trace-core, with {@code consumer.Main} running {@code body}. */
  private static Path consumer(Path dir, String imports, String body) throws IOException {
    Path src = dir.resolve("src");
    Files.createDirectories(src.resolve("consumer"));
    Files.writeString(src.resolve("module-info.java"), "module consumer { requires io.github.trtrace.core; }\n");
    Files.writeString(src.resolve("consumer/Main.java"),
        "package consumer;\n" + imports + "public class Main {\n  public static void main(String[] args) throws Exception {\n"
            + body + "\n  }\n}\n");
    return src;
  }

  private static Compilation compile(Path src, Path out) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    List<String> args = new ArrayList<>(List.of("--release", "17", "-d", out.toString(),
        "-p", packagedJar() + java.io.File.pathSeparator + slf4jJar()));
    args.add(src.resolve("module-info.java").toString());
    args.add(src.resolve("consumer/Main.java").toString());
    int rc = javac.run(null, diagnostics, diagnostics, args.toArray(String[]::new));
    return new Compilation(rc == 0, diagnostics.toString(StandardCharsets.UTF_8));
  }

  private static String slf4jJar() {
    try {
      return Path.of(org.slf4j.LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path packagedJar() {
    String jar = System.getProperty("trtrace.test.packagedJar");
    assertThat(jar).as("system property trtrace.test.packagedJar (set by the failsafe run)").isNotNull();
    return Path.of(jar);
  }
}
