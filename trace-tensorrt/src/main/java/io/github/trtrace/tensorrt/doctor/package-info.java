/**
 * Environment doctor model: the facts probes gather, the advice rules, the report.
 *
 * <pre>{@code
 * System.out.println(DoctorAdvice.evaluate(facts).toText());
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.doctor;

import org.jspecify.annotations.NullMarked;
