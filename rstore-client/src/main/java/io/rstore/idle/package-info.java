/**
 * Waiting without burning a core and without paying a wake-up on short waits:
 * the spin, yield, park back-off that every poller in RStore uses.
 */
package io.rstore.idle;
