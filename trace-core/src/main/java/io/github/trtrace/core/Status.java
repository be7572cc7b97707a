package io.github.trtrace.core;

/**
 * Outcome of one inference request, as written to the record's {@code status} field.
 *
 * <pre>{@code
 * trace.status(Status.TIMEOUT);
 * }</pre>
 */
public enum Status {
  /** The request completed and produced output. */
  SUCCESS("success"),
  /** The request failed; {@code error_type} says how. */
  ERROR("error"),
  /** The request ran out of time (queue or compute). */
  TIMEOUT("timeout"),
  /** The request was refused before it ran (admission control, validation, overload). */
  REJECTED("rejected"),
  /** The caller went away or cancelled the request. */
  CANCELLED("cancelled");

  private final String wireName;

  Status(String wireName) {
    this.wireName = wireName;
  }

  /** The value written to JSON and to span attributes, e.g. {@code "success"}. */
  public String wireName() {
    return wireName;
  }

  /** Whether records with this status are always kept by sampling (everything but success). */
  public boolean isFailure() {
    return this != SUCCESS;
  }

  /**
   * Parses a wire name.
   *
   * @throws IllegalArgumentException for an unknown name
   */
  public static Status fromWireName(String name) {
    for (Status s : values()) {
      if (s.wireName.equals(name)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown status: " + name);
  }
}
