/// PushDoubleAPNs module marker.
public enum PushDoubleAPNsModule {}
