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

  @Test
  void readsAProfiledLaunchsLayerTableAndForgetsItOnTheNextLine() {
    LaunchLine l = new LaunchLine();
    byte[] b = ("{\"launch_id\":9,\"gpu_ms\":3.0,\"members\":[{\"request_id\":\"a\",\"decode_rows\":1,\"share_ms\":3.0}],"
        + "\"layers\":[{\"name\":\"block0_attn\",\"ms\":1.25,\"invocations\":1},{\"name\":\"unknown time\"},"
        + "{\"name\":\"lm_head\",\"ms\":0.5}]}").getBytes(StandardCharsets.UTF_8);
    assertThat(p.parse(b, 0, b.length, l)).isNull();
    assertThat(l.profiledLayers).as("a layer without ms (the schema allows it) has no time to sum").isEqualTo(2);
    assertThat(l.profiledNames).startsWith("block0_attn", "lm_head");
    assertThat(l.profiledMs).startsWith(1.25, 0.5);
    LaunchLine c = l.copy();
    byte[] next = "{\"launch_id\":10,\"members\":[{\"request_id\":\"a\",\"decode_rows\":1}]}".getBytes(StandardCharsets.UTF_8);
    l.clear();
    assertThat(p.parse(next, 0, next.length, l)).isNull();
    assertThat(l.profiledLayers).isZero();
    assertThat(c.profiledLayers).as("a copy keeps its table").isEqualTo(2);
    byte[] bad = "{\"launch_id\":9,\"members\":[],\"layers\":[{\"ms\":1}]}".getBytes(StandardCharsets.UTF_8);
    assertThat(p.parse(bad, 0, bad.length, new LaunchLine())).isEqualTo("a layer without a name, or with ms < 0");
    byte[] notArray = "{\"launch_id\":9,\"members\":[],\"layers\":{}}".getBytes(StandardCharsets.UTF_8);
    assertThat(p.parse(notArray, 0, notArray.length, new LaunchLine())).isEqualTo("layers is not an array");
  }
}
