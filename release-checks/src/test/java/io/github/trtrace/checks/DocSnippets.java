package io.github.trtrace.checks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java blocks of a Markdown file: every fenced block whose info string is {@code java}, with the line it
 * starts on, the section heading above it, and, when the nearest non-blank line above the fence is
 * {@code <!-- not-compiled: reason -->}, the reason it is not compiled.
 */
final class DocSnippets {

  private static final Pattern FENCE_OPEN = Pattern.compile("^\\s*```\\s*java\\s*$");
  private static final Pattern FENCE_CLOSE = Pattern.compile("^\\s*```\\s*$");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");
  private static final Pattern OPT_OUT = Pattern.compile("^\\s*<!--\\s*not-compiled:(.*)-->\\s*$");
  private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?[\\w.]+(\\.\\*)?\\s*;\\s*$");

  private DocSnippets() {}

  /**
   * One block of {@code file} (its path from the repository root). {@code firstLine} is the 1-based line of the
   * block's first code line; {@code notCompiled} is null unless the block opted out.
   */
  record Block(String file, int index, int firstLine, String heading, List<String> lines, String notCompiled) {

    String describe() {
      return file + " block " + index + " (line " + firstLine + ", under \"" + heading + "\")";
    }

    /** The leading {@code import} lines (blank and comment lines among them allowed). */
    int importCount() {
      int n = 0;
      for (int i = 0; i < lines.size(); i++) {
        String l = lines.get(i).trim();
        if (IMPORT.matcher(l).matches()) {
          n = i + 1;
        } else if (!l.isEmpty() && !l.startsWith("//")) {
          break;
        }
      }
      return n;
    }
  }

  /**
   * The user documentation, as paths from the repository root: README.md, then every Markdown page of docs/ in
   * name order.
   */
  static List<String> documents(Path root) throws IOException {
    List<String> out = new ArrayList<>();
    out.add("README.md");
    try (Stream<Path> pages = Files.list(root.resolve("docs"))) {
      pages.filter(p -> p.getFileName().toString().endsWith(".md"))
          .map(p -> "docs/" + p.getFileName())
          .sorted()
          .forEach(out::add);
    }
    return out;
  }

  /** The Java blocks of {@code markdown}, the lines of {@code file}. */
  static List<Block> parse(String file, List<String> markdown) {
    List<Block> blocks = new ArrayList<>();
    String heading = "(top)";
    for (int i = 0; i < markdown.size(); i++) {
      String line = markdown.get(i);
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        heading = h.group(1).trim();
        continue;
      }
      if (!FENCE_OPEN.matcher(line).matches()) {
        if (line.trim().startsWith("```")) {
          i = skipFence(markdown, i); // another language: its content is not Markdown (no headings in it)
        }
        continue;
      }
      int start = i + 1;
      int end = start;
      while (end < markdown.size() && !FENCE_CLOSE.matcher(markdown.get(end)).matches()) {
        end++;
      }
      if (end == markdown.size()) {
        throw new IllegalArgumentException(file + " line " + (i + 1) + ": ```java block is never closed");
      }
      blocks.add(
          new Block(
              file,
              blocks.size() + 1,
              start + 1,
              heading,
              List.copyOf(markdown.subList(start, end)),
              optOut(file, markdown, i)));
      i = end;
    }
    return blocks;
  }

  private static int skipFence(List<String> markdown, int open) {
    for (int i = open + 1; i < markdown.size(); i++) {
      if (FENCE_CLOSE.matcher(markdown.get(i)).matches()) {
        return i;
      }
    }
    return markdown.size();
  }

  private static String optOut(String file, List<String> markdown, int fence) {
    for (int i = fence - 1; i >= 0; i--) {
      String line = markdown.get(i);
      if (line.isBlank()) {
        continue;
      }
      Matcher m = OPT_OUT.matcher(line);
      if (!m.matches()) {
        return null;
      }
      String reason = m.group(1).trim();
      if (reason.isEmpty()) {
        throw new IllegalArgumentException(
            file + " line " + (i + 1) + ": <!-- not-compiled: --> needs a reason after the colon");
      }
      return reason;
    }
    return null;
  }
}
