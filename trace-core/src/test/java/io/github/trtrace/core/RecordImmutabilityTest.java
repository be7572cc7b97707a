package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.github.trtrace.core.sink.CapturingSink;
import io.github.trtrace.core.sink.RecordSink;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Sinks and listeners receive records they may keep: nothing a sink does to a record can change it, for the
 * sink itself, for the other sinks, or later. Every mutator of every collection a record exposes throws.
 */
class RecordImmutabilityTest {

  @Test
  void aSinkCannotChangeTheRecordsTheWorkerBuilds() throws Exception {
    List<String> changed = new CopyOnWriteArrayList<>();
    RecordSink meddler = RecordSink.named("meddler", batch -> batch.forEach(r -> changed.addAll(tryToChange(r))));
    CapturingSink kept = CapturingSink.create();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(meddler).sink(kept).build()) {
      for (int extra : new int[] {0, 1, 14, 15, 40}) { // both sides of the record's small-map limit
        try (InferenceTrace t = tracer.start("llama-8b")) {
          t.attribute("tenant", "acme").attribute("route", "/v1/chat");
          for (int i = 0; i < extra; i++) {
            t.attribute("attr." + i, "v" + i);
          }
          t.attribute("tenant", "acme-2"); // replaced in place
          t.event("tensorrt.warning", "warning", "slow layer");
          t.layers(List.of(new InferenceRecord.LayerTime("conv1", 0.25, 2)));
          t.input("hello\u200Bworld").output("garbled \uFFFD");
        }
      }
      tracer.flush().get();
    }
    assertThat(changed).as("mutations that went through").isEmpty();
    assertThat(kept.records()).hasSize(5);
    int[] extras = {0, 1, 14, 15, 40};
    for (int n = 0; n < extras.length; n++) {
      InferenceRecord r = kept.records().get(n);
      List<String> keys = new ArrayList<>(List.of("tenant", "route"));
      for (int i = 0; i < extras[n]; i++) {
        keys.add("attr." + i);
      }
      assertThat(r.attributes().keySet()).as("insertion order").containsExactlyElementsOf(keys);
      assertThat(r.attributes()).contains(entry("tenant", "acme-2"), entry("route", "/v1/chat"));
      assertThat(r.attributes().get("nope")).isNull();
      assertThat(r.events()).hasSize(1);
      assertThat(r.layers()).hasSize(1);
      assertThat(r.inputFlags()).containsExactly(InputFlag.ZERO_WIDTH);
      assertThat(r.outputFlags()).containsExactly(OutputFlag.REPLACEMENT_CHAR);
    }
  }

  @Test
  void aRecordDoesNotFollowLaterChangesToItsBuilder() {
    for (int extra : new int[] {0, 15, 40}) {
      InferenceRecord.Builder b = InferenceRecord.builder("req-1", "m").latencyMs(1)
          .attribute("a", "1").attribute("b", "2")
          .addEvent(new InferenceRecord.Event("k", "info", "m", 0));
      for (int i = 0; i < extra; i++) {
        b.attribute("attr." + i, "v" + i);
      }
      InferenceRecord r = b.build();
      Map<String, String> expected = new LinkedHashMap<>(r.attributes());
      b.attribute("a", "changed").attribute("c", "3").addEvent(new InferenceRecord.Event("k", "info", "later", 0));
      assertThat(r.attributes()).containsExactlyEntriesOf(expected).containsEntry("a", "1").doesNotContainKey("c");
      assertThat(r.events()).hasSize(1);
      assertThat(tryToChange(r)).isEmpty();
      InferenceRecord copy = r.toBuilder().attribute("d", "4").build();
      assertThat(copy.attributes()).hasSize(expected.size() + 1);
      assertThat(r.attributes()).containsExactlyEntriesOf(expected);
    }
  }

  @Test
  void aRecordsAttributesEqualAMapWithTheSameEntries() {
    for (int n : new int[] {0, 1, 16, 40}) {
      Map<String, String> plain = new LinkedHashMap<>();
      InferenceRecord.Builder b = InferenceRecord.builder("req-1", "m").latencyMs(1);
      for (int i = 0; i < n; i++) {
        plain.put("k" + i, "v" + i);
        b.attribute("k" + i, "v" + i);
      }
      Map<String, String> attributes = b.build().attributes();
      assertThat(attributes).isEqualTo(plain);
      assertThat(plain).isEqualTo(attributes);
      assertThat(attributes.hashCode()).isEqualTo(plain.hashCode());
      assertThat(attributes.toString()).isEqualTo(plain.toString());
      for (int i = 0; i < n; i++) {
        assertThat(attributes.get("k" + i)).isEqualTo("v" + i);
        assertThat(attributes.containsKey("k" + i)).isTrue();
      }
      assertThat(attributes.containsKey("k" + n)).isFalse();
    }
  }

  /**
   * Tries every mutator of every collection the record exposes; the names of those after which the record read
   * differently (whether the mutator threw or not: an empty immutable set may ignore a {@code clear()}).
   */
  static List<String> tryToChange(InferenceRecord r) {
    List<String> changed = new ArrayList<>();
    Map<String, String> attributes = r.attributes();
    attempt(changed, r, "attributes.put", () -> attributes.put("tenant", "evil"));
    attempt(changed, r, "attributes.put new", () -> attributes.put("evil", "x"));
    attempt(changed, r, "attributes.remove", () -> attributes.remove("tenant"));
    attempt(changed, r, "attributes.clear", attributes::clear);
    attempt(changed, r, "attributes.replaceAll", () -> attributes.replaceAll((k, v) -> "evil"));
    attempt(changed, r, "attributes.putAll", () -> attributes.putAll(Map.of("evil", "x")));
    attempt(changed, r, "attributes.keySet.remove", () -> attributes.keySet().remove("tenant"));
    attempt(changed, r, "attributes.values.clear", () -> attributes.values().clear());
    attempt(changed, r, "attributes.entrySet.removeIf", () -> attributes.entrySet().removeIf(e -> true));
    attempt(changed, r, "attributes.entry.setValue", () -> attributes.entrySet().iterator().next().setValue("evil"));
    attempt(changed, r, "attributes.iterator.remove", () -> {
      Iterator<Map.Entry<String, String>> it = attributes.entrySet().iterator();
      it.next();
      it.remove();
    });
    mutators(changed, r, "events", r.events(), new InferenceRecord.Event("k", "info", "evil", 0));
    mutators(changed, r, "layers", r.layers(), new InferenceRecord.LayerTime("evil", 1, 1));
    mutators(changed, r, "inputFlags", r.inputFlags(), InputFlag.VERY_LONG);
    mutators(changed, r, "outputFlags", r.outputFlags(), OutputFlag.EMPTY);
    return changed;
  }

  private static <T> void mutators(List<String> changed, InferenceRecord r, String name, Collection<T> c, T element) {
    attempt(changed, r, name + ".add", () -> c.add(element));
    attempt(changed, r, name + ".clear", c::clear);
    attempt(changed, r, name + ".removeIf", () -> c.removeIf(e -> true));
    if (c instanceof List<T> list) {
      attempt(changed, r, name + ".set", () -> list.set(0, element));
      attempt(changed, r, name + ".sort", () -> list.sort((a, b) -> 0));
    }
  }

  /** Runs {@code change} and adds {@code name} to {@code changed} when {@code r} reads differently afterwards. */
  private static void attempt(List<String> changed, InferenceRecord r, String name, Runnable change) {
    String before = state(r);
    try {
      change.run();
    } catch (RuntimeException refused) {
      // UnsupportedOperationException is what a mutator must do; NoSuchElementException (an empty map's
      // iterator) changed nothing either: the state comparison below decides
    }
    if (!state(r).equals(before)) {
      changed.add(name);
    }
  }

  private static String state(InferenceRecord r) {
    return r.attributes() + "|" + r.events() + "|" + r.layers() + "|" + r.inputFlags() + "|" + r.outputFlags();
  }
}
