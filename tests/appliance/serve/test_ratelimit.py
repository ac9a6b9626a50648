from appliance.serve.ratelimit import RateLimiter


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_burst_then_refill_per_client():
    clock = FakeClock()
    limiter = RateLimiter(rate_per_minute=60, burst=3, clock=clock)
    assert [limiter.allow("a")[0] for _ in range(4)] == [True, True, True, False]
    allowed, wait = limiter.allow("a")
    assert not allowed and 0.9 < wait <= 1.0
    assert limiter.allow("b")[0]  # another client has its own bucket
    clock.now = 1.0
    assert limiter.allow("a")[0]
    assert not limiter.allow("a")[0]


def test_default_lets_a_class_behind_one_address_through():
    clock = FakeClock()
    limiter = RateLimiter(rate_per_minute=600, burst=120, clock=clock)
    # 40 students each asking once within the same second, from one NAT address
    assert all(limiter.allow("10.0.0.1")[0] for _ in range(40))
