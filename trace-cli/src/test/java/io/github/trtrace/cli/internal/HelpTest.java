package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a new user sees first: trtrace --help, and a command's --help. */
class HelpTest {
  private static final List<String> COMMANDS = List.of("find", "explain", "stats", "report", "build-diff", "gate");

  /** The command list of the top-level help: command name, its summary with the wrapped lines joined. */
  private static Map<String, String> commandList(String help) {
    Map<String, String> out = new LinkedHashMap<>();
    String current = null;
    boolean inList = false;
    for (String line : help.split("\n", -1)) {
      if (line.equals("Commands:")) {
        inList = true;
        continue;
      }
      if (!inList) {
        continue;
      }
      if (line.isBlank() || !line.startsWith("  ")) {
        break;
      }
      String[] parts = line.trim().split("\\s+", 2);
      if (line.startsWith("  ") && !line.startsWith("   ")) {
        current = parts[0];
        out.put(current, parts.length > 1 ? parts[1] : "");
      } else if (current != null) {
        out.put(current, out.get(current) + " " + line.trim());
      }
    }
    return out;
  }

  @Test
  void theTopLevelHelpListsEveryCommandWithAWholeSentence() {
    Cli r = Cli.run("--help");
    assertThat(r.code()).isZero();
    Map<String, String> list = commandList(r.out());
    assertThat(list.keySet()).containsAll(COMMANDS);
    for (String c : COMMANDS) {
      // a summary cut at the first source line ("... the decode steps") is not a sentence
      assertThat(list.get(c)).as(c).endsWith(".").hasSizeLessThan(100);
    }
  }

  @Test
  void theTopLevelHelpSaysHowToGetACommandsHelpAndTheExitCodes() {
    String out = Cli.run("--help").out().replaceAll("\\s+", " ");
    assertThat(out).contains("trtrace help COMMAND", "Exit codes: 0 success; 1 ", "2 bad usage or unreadable input");
  }

  @Test
  void aCommandsDescriptionIsWrappedAsTextNotAtTheSourceLineBreaks() {
    for (String c : COMMANDS) {
      Cli r = Cli.run(c, "--help");
      assertThat(r.code()).as(c).isZero();
      List<String> description = new ArrayList<>();
      boolean usage = false;
      for (String line : r.out().split("\n", -1)) {
        if (line.startsWith("Usage: ")) {
          usage = true;
        } else if (usage && !line.startsWith(" ")) {
          description.add(line);
        } else if (usage && !description.isEmpty()) {
          break; // the options
        }
      }
      assertThat(description).as(c).isNotEmpty();
      // every line but the last is filled towards the 80-column width: "failed (whatever the" was cut short
      for (String line : description.subList(0, description.size() - 1)) {
        assertThat(line.length()).as(c + ": '" + line + "'").isGreaterThan(55);
      }
    }
  }
}
