package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The README's Quickstart compiles against this build with {@code -Xlint:all -Werror}: its imports as
 * written, its body inside a method whose parameters are the placeholders it uses.
 */
class ReadmeQuickstartTest {
  private static final String PRELUDE = String.join("\n",
      "interface Request { String getHeader(String name); }",
      "interface Response { void setHeader(String name, String value); }",
      "interface Tokenizer { int[] encode(String text); }",
      "interface Engine { String generate(int[] ids, Runnable onToken); }",
      "");

  static String quickstartBlock(String readme) {
    int section = readme.indexOf("\n## Quickstart");
    assertThat(section).as("README has a Quickstart section").isPositive();
    int start = readme.indexOf("```java\n", section);
    int end = readme.indexOf("\n```", start + 8);
    assertThat(start).isPositive();
    return readme.substring(start + "```java\n".length(), end + 1);
  }

  @Test
  void theQuickstartCompilesWithoutAWarning() throws IOException {
    String block = quickstartBlock(Files.readString(Path.of("..", "README.md")));
    StringBuilder imports = new StringBuilder();
    StringBuilder body = new StringBuilder();
    for (String line : block.split("\n", -1)) {
      (line.startsWith("import ") ? imports : body).append(line).append('\n');
    }
    assertThat(imports.toString()).as("the README names its imports").contains("import io.github.trtrace.core.");
    String source = imports + PRELUDE
        + "class Quickstart {\n"
        + "  static String handle(Request request, Response response, String prompt, Tokenizer tokenizer,"
        + " Engine engine) {\n"
        + body
        + "    return answer;\n"
        + "  }\n"
        + "}\n";
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    Path out = Files.createTempDirectory("readme-quickstart");
    List<String> options = new ArrayList<>(List.of(
        "-Xlint:all", "-Werror", "-proc:none", "--release", "17",
        "-classpath", System.getProperty("java.class.path"), "-d", out.toString()));
    JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Quickstart.java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
    boolean ok = javac.getTask(diagnostics, null, null, options, null, List.of(file)).call();
    assertThat(ok).as(diagnostics + "\n" + source).isTrue();
    assertThat(diagnostics.toString()).isEmpty();
  }
}
