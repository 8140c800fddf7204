package io.rstore.net;

import io.rstore.MapFlags;
import io.rstore.RStore;

/** A client process for tests: maps a segment, says so, and waits to be killed. */
public final class MappingHolder {
    public static void main(String[] args) throws InterruptedException {
        RStore rstore = RStore.connect(args[0]);
        rstore.joinNamespace(args[1]).raddress(Long.parseLong(args[2])).map(MapFlags.NONE);
        System.out.println("mapped");
        System.out.flush();
        Thread.sleep(120_000); // killed long before
    }
}
