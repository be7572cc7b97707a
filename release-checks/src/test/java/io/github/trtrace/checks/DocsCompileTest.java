package io.github.trtrace.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.checks.DocSnippets.Block;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of README.md and of the pages in docs/ compiles against the published modules, with
 * {@code -Xlint:all -Werror} and {@code --release 17}.
 *
 * <p>Conventions for authors of the README and docs/:
 *
 * <ul>
 *   <li>A block starts with the {@code import} lines it needs (users copy them with the code); they become the
 *       imports of the compiled file.
 *   <li>The rest of the block is compiled as the body of {@code void snippet() throws Exception} in a subclass of
 *       {@code src/test/docs/Prelude.java}, which declares the reader's own objects the blocks use without
 *       declaring ({@code request}, {@code response}, {@code prompt}, {@code tokenizer}, {@code engine}, ...). A
 *       block that declares methods is compiled as class members instead.
 *   <li>A block may opt out only with {@code <!-- not-compiled: reason -->} as the nearest non-blank line above
 *       its fence; the test prints how many were compiled and the reasons of those that were not.
 * </ul>
 */
class DocsCompileTest {

  private static final String PACKAGE = "docs";
  private static final Path PRELUDE = Path.of("src/test/docs/Prelude.java");
  private static final List<String> OPTIONS =
      List.of("--release", "17", "-Xlint:all", "-Werror", "-proc:none", "-implicit:none");

  @TempDir Path out;

  @Test
  void everyJavaBlockOfTheReadmeAndTheDocsCompiles() throws IOException {
    Path root = Reactor.root();
    String prelude = Files.readString(PRELUDE, StandardCharsets.UTF_8);
    assertThat(compile(prelude, List.of())).as("src/test/docs/Prelude.java compiles").isEmpty();

    List<String> failures = new ArrayList<>();
    List<String> optedOut = new ArrayList<>();
    List<String> withoutBlocks = new ArrayList<>();
    int total = 0;
    int compiled = 0;
    for (String file : DocSnippets.documents(root)) {
      List<Block> blocks =
          DocSnippets.parse(file, Files.readAllLines(root.resolve(file), StandardCharsets.UTF_8));
      total += blocks.size();
      int compiledHere = 0;
      for (Block block : blocks) {
        if (block.notCompiled() != null) {
          System.out.println("docs: not compiled: " + block.describe() + ": " + block.notCompiled());
          optedOut.add(block.describe() + ": " + block.notCompiled());
          continue;
        }
        compiledHere++;
        List<String> asStatements = compile(prelude, List.of(source(block, false)));
        if (asStatements.isEmpty()) {
          continue;
        }
        List<String> asMembers = compile(prelude, List.of(source(block, true)));
        if (asMembers.isEmpty()) {
          continue;
        }
        failures.add(block.describe() + " does not compile:\n  " + String.join("\n  ", asStatements));
      }
      compiled += compiledHere;
      System.out.printf("docs: %s: compiled %d of %d java blocks%n", file, compiledHere, blocks.size());
      if (blocks.isEmpty()) {
        withoutBlocks.add(file);
      }
    }
    System.out.printf("docs: compiled %d of %d java blocks (%d not compiled)%n", compiled, total, total - compiled);
    assertThat(withoutBlocks).as("README.md has java blocks").doesNotContain("README.md");
    // A block left uncompiled must be checked another way, by a test its reason names (an excerpt of code that
    // a test proves is there); the README's blocks are all compiled.
    assertThat(optedOut)
        .allSatisfy(o -> assertThat(o).doesNotStartWith("README.md").containsPattern("\\b\\w+Test\\b"));
    assertThat(failures).as("java blocks of the README and docs/ that do not compile").isEmpty();
  }

  @Test
  void aBlockThatDoesNotCompileIsReportedWithItsFileAndLine() throws IOException {
    List<String> readme =
        List.of(
            "## Broken",
            "",
            "```java",
            "import java.util.List;",
            "List<String> names = List.of(\"a\");",
            "int n = names;",
            "```",
            "<!-- not-compiled: shown for its shape only -->",
            "```java",
            "this is not java",
            "```");
    List<Block> blocks = DocSnippets.parse("docs/broken.md", readme);
    assertThat(blocks).hasSize(2);
    assertThat(blocks.get(1).notCompiled()).isEqualTo("shown for its shape only");
    String prelude = Files.readString(PRELUDE, StandardCharsets.UTF_8);
    List<String> errors = compile(prelude, List.of(source(blocks.get(0), false)));
    assertThat(errors).singleElement().asString().startsWith("docs/broken.md line 6:").contains("incompatible types");
  }

  @Test
  void lintWarningsFailABlock() throws IOException {
    List<Block> blocks =
        DocSnippets.parse(
            "README.md", List.of("```java", "java.util.List raw = new java.util.ArrayList<String>();", "```"));
    String prelude = Files.readString(PRELUDE, StandardCharsets.UTF_8);
    assertThat(compile(prelude, List.of(source(blocks.get(0), false))))
        .anySatisfy(e -> assertThat(e).startsWith("README.md line 2:").contains("raw"));
  }

  /** A compilation unit for one block, with a line map back to its Markdown file. */
  record Unit(String className, String file, String text, int[] docLine) {}

  private static Unit source(Block block, boolean asMembers) {
    String className = "Block" + block.index();
    List<String> lines = new ArrayList<>();
    List<Integer> map = new ArrayList<>();
    lines.add("package " + PACKAGE + ";");
    map.add(-1);
    int imports = block.importCount();
    for (int i = 0; i < imports; i++) {
      lines.add(block.lines().get(i));
      map.add(block.firstLine() + i);
    }
    lines.add("abstract class " + className + " extends Prelude {");
    map.add(-1);
    if (!asMembers) {
      lines.add("void snippet() throws Exception {");
      map.add(-1);
    }
    for (int i = imports; i < block.lines().size(); i++) {
      lines.add(block.lines().get(i));
      map.add(block.firstLine() + i);
    }
    lines.add(asMembers ? "}" : "}}");
    map.add(-1);
    return new Unit(
        className, block.file(), String.join("\n", lines) + "\n", map.stream().mapToInt(Integer::intValue).toArray());
  }

  /** Compiles the prelude and the units; returns the errors and warnings, mapped to Markdown lines. */
  private List<String> compile(String prelude, List<Unit> units) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Path classes = Files.createTempDirectory(out, "classes");
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<JavaFileObject> sources = new ArrayList<>();
      sources.add(new Source("Prelude", prelude));
      for (Unit u : units) {
        sources.add(new Source(u.className(), u.text()));
      }
      List<String> options = new ArrayList<>(OPTIONS);
      options.addAll(List.of("-classpath", System.getProperty("java.class.path"), "-d", classes.toString()));
      javac.getTask(null, files, diagnostics, options, null, sources).call();
    }
    List<String> messages = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.NOTE) {
        continue;
      }
      messages.add(where(d, units) + d.getMessage(Locale.ROOT).replace('\n', ' '));
    }
    return messages;
  }

  private static String where(Diagnostic<? extends JavaFileObject> d, List<Unit> units) {
    if (d.getSource() == null) {
      return "javac: ";
    }
    String file = d.getSource().getName();
    for (Unit u : units) {
      if (file.endsWith(u.className() + ".java")) {
        int line = (int) d.getLineNumber();
        if (line >= 1 && line <= u.docLine().length && u.docLine()[line - 1] > 0) {
          return u.file() + " line " + u.docLine()[line - 1] + ": ";
        }
        return u.file() + " (wrapper of the block, line " + line + "): ";
      }
    }
    return "Prelude.java line " + d.getLineNumber() + ": ";
  }

  private static final class Source extends SimpleJavaFileObject {
    private final String text;

    Source(String className, String text) {
      super(URI.create("string:///" + PACKAGE + "/" + className + ".java"), Kind.SOURCE);
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }

}
