package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LaunchParserTest {
  private final LaunchParser p = new LaunchParser();

  private boolean launch(String line) {
    byte[] b = ("xx" + line).getBytes(StandardCharsets.UTF_8);
    return p.isLaunch(b, 2, b.length - 2);
  }

  @Test
  void tellsLaunchLinesFromRecordsByTheirFirstIdField() {
    assertThat(launch("{\"timestamp\":\"2026-12-01T10:00:00.000000Z\",\"launch_id\":7,\"members\":[]}")).isTrue();
    assertThat(launch("{\"timestamp\":\"2026-12-01T10:00:00.000000Z\",\"request_id\":\"r\",\"launch_count\":2}")).isFalse();
    // a key inside a string value is escaped, so it is not taken for a field
    assertThat(launch("{\"request_id\":\"a\\\",\\\"launch_id\\\":1\",\"model_name\":\"m\"}")).isFalse();
    assertThat(launch("{\"model_name\":\"x\\\"launch_id\\\":\",\"request_id\":\"r\"}")).isFalse();
    // past the byte scan, or spaced out, the streaming parser decides
    assertThat(launch("{\"pad\":\"" + "p".repeat(200) + "\",\"launch_id\":7,\"members\":[]}")).isTrue();
    assertThat(launch("{ \"launch_id\" : 7, \"members\": []}")).isTrue();
    assertThat(launch("{ \"request_id\" : \"r\", \"launch_id\": 7}")).isFalse();
    assertThat(launch("not json")).isFalse();
  }

  @Test
  void parsesMembersAndChecksTheirShares() {
    LaunchLine l = new LaunchLine();
    byte[] b = ("{\"launch_id\":9,\"phase\":\"mixed\",\"batch_size\":2,\"gpu_ms\":3.0,\"host_ms\":3.5,\"status\":\"ok\","
        + "\"members\":[{\"request_id\":\"a\",\"prefill_tokens\":30,\"share_ms\":2.9},{\"request_id\":\"b\",\"decode_rows\":1,"
        + "\"share_ms\":0.1}]}").getBytes(StandardCharsets.UTF_8);
    assertThat(p.parse(b, 0, b.length, l)).isNull();
    assertThat(l.indexOf("b")).isEqualTo(1);
    assertThat(l.othersPrefill(1)).isTrue();
    assertThat(l.othersPrefill(0)).isFalse();
    assertThat(l.sharesOff()).isFalse();
    l.memberShare[1] = 0.2;
    assertThat(l.sharesOff()).isTrue();
    assertThat(l.sharesOffText()).isEqualTo("launch 9: its 2 members' share_ms add up to 3.100 ms, not its gpu_ms 3.000 ms (off by 0.100 ms)");
    l.membersTruncated = 5;
    assertThat(l.shareSum()).isNaN();
    byte[] bad = "{\"launch_id\":9}".getBytes(StandardCharsets.UTF_8);
    assertThat(p.parse(bad, 0, bad.length, l)).isEqualTo("no members");
  }
}
