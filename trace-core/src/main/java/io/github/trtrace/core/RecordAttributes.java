package io.github.trtrace.core;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A record's user attributes, made once from the builder's or the pooled entry's and never changed: the only
 * copy the record keeps (issue 22: the worker's build put them into a builder's {@code LinkedHashMap} and the
 * record copied that into another; building and copying those maps took about a quarter of the worker's CPU). Up to {@link #MAX_SCANNED} entries (nearly every
 * record: a handful of attributes) they sit in one array in insertion order, looked up by a scan, with no hash
 * table to build; a longer map is a {@code LinkedHashMap} copy behind {@code Collections.unmodifiableMap}, so a
 * lookup stays constant-time. Every mutator throws {@link UnsupportedOperationException} (AbstractMap's, and an
 * iterator without {@code remove}); equality, hash code and text are those of any {@code Map} with the entries.
 */
final class RecordAttributes extends AbstractMap<String, String> {
  /** The most entries kept in the scanned array; more are copied into a hash map. */
  static final int MAX_SCANNED = 16;

  private final Map.Entry<String, String>[] entries;

  private RecordAttributes(Map.Entry<String, String>[] entries) {
    this.entries = entries;
  }

  /** An immutable copy of the first {@code count} keys and values, in that order (keys distinct, no nulls). */
  static Map<String, String> copyOf(String[] keys, String[] values, int count) {
    if (count == 0) {
      return Map.of();
    }
    if (count > MAX_SCANNED) {
      Map<String, String> m = new LinkedHashMap<>(hashCapacity(count));
      for (int i = 0; i < count; i++) {
        m.put(keys[i], values[i]);
      }
      return Collections.unmodifiableMap(m);
    }
    Map.Entry<String, String>[] copy = newArray(count);
    for (int i = 0; i < count; i++) {
      copy[i] = Map.entry(keys[i], values[i]);
    }
    return new RecordAttributes(copy);
  }

  /** An immutable copy of {@code m} (no null keys or values), in its iteration order. */
  static Map<String, String> copyOf(Map<String, String> m) {
    int count = m.size();
    if (count == 0) {
      return Map.of();
    }
    if (count > MAX_SCANNED) {
      return Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }
    Map.Entry<String, String>[] copy = newArray(count);
    int i = 0;
    for (Map.Entry<String, String> e : m.entrySet()) {
      copy[i++] = Map.entry(e.getKey(), e.getValue());
    }
    return new RecordAttributes(copy);
  }

  @SuppressWarnings("unchecked")
  private static Map.Entry<String, String>[] newArray(int count) {
    return (Map.Entry<String, String>[]) new Map.Entry<?, ?>[count];
  }

  /** A hash map's capacity that holds {@code count} entries without a resize. */
  private static int hashCapacity(int count) {
    return (int) Math.ceil(count / 0.75);
  }

  @Override
  public int size() {
    return entries.length;
  }

  @Override
  public @Nullable String get(@Nullable Object key) {
    for (Map.Entry<String, String> e : entries) {
      if (e.getKey().equals(key)) {
        return e.getValue();
      }
    }
    return null;
  }

  @Override
  public boolean containsKey(@Nullable Object key) {
    return get(key) != null; // values are never null
  }

  @Override
  public void forEach(BiConsumer<? super String, ? super String> action) {
    for (Map.Entry<String, String> e : entries) {
      action.accept(e.getKey(), e.getValue());
    }
  }

  @Override
  public Set<Map.Entry<String, String>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return entries.length;
      }

      @Override
      public Iterator<Map.Entry<String, String>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < entries.length;
          }

          @Override
          public Map.Entry<String, String> next() {
            if (next >= entries.length) {
              throw new NoSuchElementException();
            }
            return entries[next++];
          }
        };
      }
    };
  }
}
