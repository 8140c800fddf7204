package io.rstore.transport.rdma;

import org.junit.jupiter.api.Assumptions;

/**
 * The device contract on a real verbs device through DiSNI and our libdisni: runs where
 * one is set up (RSTORE_RDMA_ADDRESS, the device's IP address; bin/test-rdma does it on
 * SoftRoCE in a QEMU guest) and is skipped, saying what is missing, elsewhere.
 */
class DisniDeviceTest extends DeviceContract {
    private static final String ADDRESS = System.getenv("RSTORE_RDMA_ADDRESS");

    @Override
    RdmaDevice open() { // each test is skipped with the reason where there is no device
        String why = DisniDevice.unavailable();
        Assumptions.assumeTrue(why == null, "no DiSNI device here: " + why);
        Assumptions.assumeTrue(ADDRESS != null && !ADDRESS.isEmpty(), "RSTORE_RDMA_ADDRESS (the RDMA device's IP address) is not set");
        return DisniDevice.open(RdmaDevice.Connections.DEFAULT);
    }

    @Override
    String address() {
        return ADDRESS;
    }
}
