package io.github.trtrace.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README is the first screen and the manual lives in docs/: the README stays under 12 KB, every relative link
 * of the user documentation resolves (file and heading), the docs index lists every page, the README names every
 * published module, its two set-up commands are the ones CI runs, and the consumer project runs the README's
 * Quickstart as written. The Java blocks themselves are compiled by {@link DocsCompileTest}.
 */
class DocsTest {

  /** The README is one screen of pitch, coordinates, Quickstart, commands and links; the manual is in docs/. */
  static final int README_MAX_BYTES = 12 * 1024;

  private static final Pattern INLINE_LINK = Pattern.compile("\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern REFERENCE_LINK = Pattern.compile("^\\s*\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");
  private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");

  private static Path root;

  @BeforeAll
  static void findRoot() {
    root = Reactor.root();
  }

  @Test
  void theReadmeFitsOnAFirstScreen() throws IOException {
    long size = Files.size(root.resolve("README.md"));
    assertThat(size)
        .as("README.md is %d bytes; move details into docs/ (the limit is %d)", size, README_MAX_BYTES)
        .isLessThanOrEqualTo(README_MAX_BYTES);
  }

  @Test
  void everyRelativeLinkOfTheDocumentationResolves() throws IOException {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (String file : linkedDocuments()) {
      List<String> lines = read(file);
      for (Link link : links(file, lines)) {
        checked++;
        problems.addAll(problems(link, lines));
      }
    }
    System.out.println("docs: " + checked + " relative links checked");
    assertThat(checked).as("relative links found").isPositive();
    assertThat(problems).as("relative links that do not resolve").isEmpty();
  }

  @Test
  void aLinkToAMissingFileOrHeadingIsReported() throws IOException {
    List<String> page =
        List.of(
            "# Page",
            "[ok](../README.md#quickstart) [gone](missing.md) [`code` too](../README.md#no-such-heading)",
            "`[in code](missing-in-code.md)`",
            "```",
            "[in a fence](missing-in-fence.md)",
            "```",
            "[self](#page) [not here](#elsewhere)",
            "[ref]: ../SECURITY.md",
            "[ref2]: ../NO-SUCH.md");
    List<String> problems = new ArrayList<>();
    for (Link link : links("docs/example.md", page)) {
      problems.addAll(problems(link, page));
    }
    assertThat(problems)
        .containsExactly(
            "docs/example.md line 2: missing.md: no such file",
            "docs/example.md line 2: ../README.md#no-such-heading: README.md has no heading #no-such-heading",
            "docs/example.md line 7: #elsewhere: docs/example.md has no heading #elsewhere",
            "docs/example.md line 9: ../NO-SUCH.md: no such file");
  }

  @Test
  void headingAnchorsAreTheOnesGitHubMakes() {
    Map<String, Integer> seen = new HashMap<>();
    assertThat(anchor("HTTP: `X-Request-ID`, `traceparent` and rejections (`trace-http`)", seen))
        .isEqualTo("http-x-request-id-traceparent-and-rejections-trace-http");
    assertThat(anchor("Caller-side allocation (issue 10, `GarbageFreeTest`)", seen))
        .isEqualTo("caller-side-allocation-issue-10-garbagefreetest");
    assertThat(anchor("Sampling", seen)).isEqualTo("sampling");
    assertThat(anchor("Sampling", seen)).isEqualTo("sampling-1");
  }

  @Test
  void theDocsIndexLinksEveryPage() throws IOException {
    Set<String> linked = new TreeSet<>();
    for (Link link : links("docs/README.md", read("docs/README.md"))) {
      if (link.target() != null) {
        linked.add(root.relativize(link.target()).toString().replace('\\', '/'));
      }
    }
    List<String> pages = new ArrayList<>(DocSnippets.documents(root));
    pages.remove("README.md");
    pages.remove("docs/README.md");
    assertThat(pages).as("pages in docs/").isNotEmpty();
    assertThat(linked).as("pages linked from docs/README.md").containsAll(pages);
  }

  @Test
  void theReadmeNamesEveryPublishedModule() throws IOException {
    Set<String> named = new TreeSet<>();
    Pattern row = Pattern.compile("^\\|\\s*`([a-z0-9-]+)`\\s*\\|");
    for (String line : section(read("README.md"), "## Maven coordinates")) {
      Matcher m = row.matcher(line);
      if (m.find()) {
        named.add(m.group(1));
      }
    }
    assertThat(named)
        .as("modules in the README's Maven coordinates table")
        .isEqualTo(Reactor.publishedLibraries(Reactor.modules()));
  }

  @Test
  void theReadmeHasTwoSetUpCommandsAndCiRunsTheTestCommand() throws IOException {
    List<String> commands = new ArrayList<>();
    boolean inBlock = false;
    for (String line : section(read("README.md"), "## Run it on a fresh machine")) {
      if (FENCE.matcher(line).find()) {
        inBlock = !inBlock;
      } else if (inBlock && !line.isBlank() && !line.strip().startsWith("#")) {
        commands.add(line.strip());
      }
    }
    assertThat(commands).as("set-up commands in the README").hasSize(2);
    assertThat(commands.get(0)).as("the demo command").contains("-Pdemo").contains("-pl examples");
    Matcher test = Pattern.compile("^JAVA_HOME=(\\S+) mvn -B verify$").matcher(commands.get(1));
    assertThat(test.matches()).as("the test command: %s", commands.get(1)).isTrue();
    String ci = Files.readString(root.resolve(".ci/run"), StandardCharsets.UTF_8);
    assertThat(ci)
        .as(".ci/run runs the README's test command with the README's JDK")
        .contains("JDK25=${JDK25:-" + test.group(1) + "}")
        .contains("JAVA_HOME=\"$JDK25\" mvn -B -ntp verify");
  }

  @Test
  void theConsumerAppRunsTheReadmeQuickstartAsWritten() throws IOException {
    List<String> quickstart = new ArrayList<>();
    boolean inBlock = false;
    for (String line : section(read("README.md"), "## Quickstart")) {
      if (FENCE.matcher(line).find()) {
        if (inBlock) {
          break;
        }
        inBlock = true;
      } else if (inBlock) {
        quickstart.add(line.strip());
      }
    }
    int from = indexStartingWith(quickstart, "String answer = tracer.call(");
    assertThat(from).as("the README's Quickstart has its per-request part").isNotNegative();
    List<String> perRequest = quickstart.subList(from, quickstart.size());

    List<String> app =
        Files.readAllLines(
            root.resolve("it/consumer/src/main/java/com/example/consumer/ConsumerApp.java"), StandardCharsets.UTF_8);
    int start = indexStartingWith(app, "// --- README Quickstart");
    int end = indexStartingWith(app, "// --- end of the README Quickstart");
    assertThat(start).as("ConsumerApp marks the README's Quickstart").isNotNegative();
    assertThat(end).isGreaterThan(start);
    List<String> inApp = app.subList(start + 1, end).stream().map(String::strip).toList();
    assertThat(inApp).as("ConsumerApp's copy of the README's Quickstart").isEqualTo(perRequest);
  }

  // --- the Markdown reading

  /**
   * A relative link: the file and line it is on, as written, the path it points to (null for a heading of its own
   * file) and the heading anchor (null when none).
   */
  record Link(String file, int line, String written, Path target, String anchor) {}

  /** README.md, the pages of docs/ and the other Markdown files at the root. */
  private static Set<String> linkedDocuments() throws IOException {
    Set<String> files = new LinkedHashSet<>(DocSnippets.documents(root));
    try (Stream<Path> top = Files.list(root)) {
      top.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".md")).sorted().forEach(files::add);
    }
    return files;
  }

  private static List<String> read(String file) throws IOException {
    return Files.readAllLines(root.resolve(file), StandardCharsets.UTF_8);
  }

  /** The relative links of a Markdown file, outside fenced blocks and inline code. */
  static List<Link> links(String file, List<String> lines) {
    Path dir = root.resolve(file).getParent();
    List<Link> out = new ArrayList<>();
    boolean fenced = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (FENCE.matcher(line).find()) {
        fenced = !fenced;
        continue;
      }
      if (fenced) {
        continue;
      }
      String text = INLINE_CODE.matcher(line).replaceAll("``");
      List<String> targets = new ArrayList<>();
      Matcher inline = INLINE_LINK.matcher(text);
      while (inline.find()) {
        targets.add(inline.group(1));
      }
      Matcher reference = REFERENCE_LINK.matcher(text);
      if (reference.matches()) {
        targets.add(reference.group(1));
      }
      for (String written : targets) {
        if (written.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue; // https:, mailto: ...
        }
        int hash = written.indexOf('#');
        String path = hash < 0 ? written : written.substring(0, hash);
        String anchor = hash < 0 ? null : written.substring(hash + 1);
        Path target = path.isEmpty() ? null : dir.resolve(path).normalize();
        out.add(new Link(file, i + 1, written, target, anchor));
      }
    }
    return out;
  }

  private static List<String> problems(Link link, List<String> linesOfItsFile) throws IOException {
    String where = link.file() + " line " + link.line() + ": " + link.written() + ": ";
    if (link.target() == null) {
      return anchors(linesOfItsFile).contains(link.anchor())
          ? List.of()
          : List.of(where + link.file() + " has no heading #" + link.anchor());
    }
    if (!link.target().startsWith(root)) {
      return List.of(where + "points outside the repository");
    }
    if (!Files.exists(link.target())) {
      return List.of(where + "no such file");
    }
    if (link.anchor() == null || link.anchor().isEmpty()) {
      return List.of();
    }
    if (!link.target().toString().endsWith(".md")) {
      return List.of(where + "an anchor into a file that is not Markdown");
    }
    Set<String> anchors = anchors(Files.readAllLines(link.target(), StandardCharsets.UTF_8));
    if (!anchors.contains(link.anchor())) {
      String name = root.relativize(link.target()).toString().replace('\\', '/');
      return List.of(where + name + " has no heading #" + link.anchor());
    }
    return List.of();
  }

  /** The anchors GitHub gives the headings of a Markdown file (outside fenced blocks). */
  static Set<String> anchors(List<String> lines) {
    Set<String> out = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fenced = false;
    for (String line : lines) {
      if (FENCE.matcher(line).find()) {
        fenced = !fenced;
        continue;
      }
      Matcher h = HEADING.matcher(line);
      if (!fenced && h.matches()) {
        out.add(anchor(h.group(1), seen));
      }
    }
    return out;
  }

  /**
   * GitHub's heading anchor: lower case, Markdown emphasis and code marks dropped, every character that is not a
   * letter, digit, space, hyphen or underscore dropped, spaces turned into hyphens; a repeated anchor gets -1, -2.
   */
  static String anchor(String heading, Map<String, Integer> seen) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
    StringBuilder slug = new StringBuilder();
    text.codePoints()
        .forEach(
            c -> {
              if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
              } else if (c == ' ') {
                slug.append('-');
              }
            });
    String base = slug.toString();
    int n = seen.merge(base, 1, Integer::sum) - 1;
    return n == 0 ? base : base + "-" + n;
  }

  /** The lines of a README section: from its heading to the next heading of the same or a higher level. */
  private static List<String> section(List<String> lines, String heading) {
    int start = lines.indexOf(heading);
    assertThat(start).as("README section %s", heading).isNotNegative();
    int level = heading.indexOf(' ');
    List<String> out = new ArrayList<>();
    boolean fenced = false;
    for (int i = start + 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (FENCE.matcher(line).find()) {
        fenced = !fenced;
      }
      Matcher h = Pattern.compile("^(#{1,6})\\s").matcher(line);
      if (!fenced && h.find() && h.group(1).length() <= level) {
        break;
      }
      out.add(line);
    }
    return out;
  }

  private static int indexStartingWith(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }
}
