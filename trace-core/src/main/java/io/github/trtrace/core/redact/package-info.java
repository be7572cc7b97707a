/**
 * Keeping secrets and personal data out of records: the {@link
 * io.github.trtrace.core.redact.Redactor} turns raw input into a short, redacted, printable
 * {@code input_digest}, and {@link io.github.trtrace.core.redact.InputInspector} flags inputs that
 * carry invisible or invalid characters.
 *
 * <pre>{@code
 * String digest = Redactor.defaults().digest(prompt);       // "mail [EMAIL] key [SECRET] …"
 * Set<InputFlag> flags = InputInspector.flags(prompt, InputInspector.DEFAULT_VERY_LONG);
 * }</pre>
 */
@NullMarked
package io.github.trtrace.core.redact;

import org.jspecify.annotations.NullMarked;
