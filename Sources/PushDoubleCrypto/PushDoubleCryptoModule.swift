/// PushDoubleCrypto module marker.
public enum PushDoubleCryptoModule {}
