package io.github.trtrace.checks;

import java.util.List;

/** A line diff (longest common subsequence) for test failure messages; each change under its type line. */
final class LineDiff {

  private LineDiff() {}

  static String of(String before, String after) {
    List<String> a = before.lines().toList();
    List<String> b = after.lines().toList();
    int[][] lcs = new int[a.size() + 1][b.size() + 1];
    for (int i = a.size() - 1; i >= 0; i--) {
      for (int j = b.size() - 1; j >= 0; j--) {
        lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    StringBuilder out = new StringBuilder();
    String context = "";
    String printedContext = null;
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
        if (!a.get(i).startsWith(" ")) {
          context = a.get(i);
        }
        i++;
        j++;
        continue;
      }
      if (!context.isEmpty() && !context.equals(printedContext)) {
        out.append("  ").append(context).append('\n');
        printedContext = context;
      }
      if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
        out.append("+ ").append(b.get(j++)).append('\n');
      } else {
        out.append("- ").append(a.get(i++)).append('\n');
      }
    }
    return out.toString();
  }
}
