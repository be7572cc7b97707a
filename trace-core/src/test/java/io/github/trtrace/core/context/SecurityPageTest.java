package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What SECURITY.md says of a rejected request ID is what the record holds (issue 19 item 9). */
class SecurityPageTest {

  @Test
  void theRejectedIdLengthOnTheSecurityPageIsTheLongestRejectedValue() throws IOException {
    String page = Files.readString(securityPage());
    Matcher m = Pattern.compile("a rejected value is kept only sanitized .{0,40}? and cut to (?:at most )?(\\d+) char")
        .matcher(page);
    assertThat(m.find()).as("SECURITY.md states the rejected value's length").isTrue();
    int stated = Integer.parseInt(m.group(1));

    String longest = RequestIds.accept("x\u0000".repeat(500)).rejectedValue();
    assertThat(longest).endsWith("\u2026");
    assertThat(longest.length()).as("longest rejected value vs SECURITY.md").isEqualTo(stated);
  }

  /** The repository's SECURITY.md, found from whichever folder the test JVM runs in (surefire: the module; failsafe: below it). */
  private static Path securityPage() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path page = dir.resolve("SECURITY.md");
      if (Files.isRegularFile(page)) {
        return page;
      }
    }
    throw new AssertionError("no SECURITY.md above " + Path.of("").toAbsolutePath());
  }
}
