-- Subscribes the session to the channel on which stores announce that
-- events committed (notify_events.sql). LISTEN takes an identifier, not a
-- parameter: the channel's name is fixed here and there.
LISTEN stockade_events
