/** Client internals that are not API: metrics wiring. */
package io.rstore.internal;
