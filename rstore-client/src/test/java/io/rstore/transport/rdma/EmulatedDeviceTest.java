package io.rstore.transport.rdma;

/** The device contract on the emulated device: every build runs it. */
class EmulatedDeviceTest extends DeviceContract {
    @Override
    RdmaDevice open() {
        return new EmulatedDevice();
    }

    @Override
    String address() {
        return "127.0.0.1";
    }
}
