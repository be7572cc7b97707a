/**
 * Keeping secrets and personal data out of records: the {@link
 * io.github.trtrace.core.redact.Redactor} turns raw input into a short, redacted, printable
 * {@code input_digest}. (The tracer itself flags inputs that carry invisible or invalid characters:
 * {@link io.github.trtrace.core.InputFlag}.)
 *
 * <pre>{@code
 * String digest = Redactor.defaults().digest(prompt);       // "mail [EMAIL] key [SECRET] …"
 * }</pre>
 */
@NullMarked
package io.github.trtrace.core.redact;

import org.jspecify.annotations.NullMarked;
