"""Simulator parameters of SCML 2021 (spec Appendix A.1, Table 2).

Example:
    >>> p = SimulationParams()
    >>> (p.neg_n_steps, p.reporting_period, p.global_penalty)
    (20, 5, 0.15)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from accord.core.errors import ConfigError

__all__ = ["SIMULATOR", "SimulationParams"]

#: Party id of the simulator in exogenous contracts (the other party is an agent index).
SIMULATOR = -1


@dataclass(frozen=True)
class SimulationParams:
    """Table 2 settings. Time limits are wall-clock seconds; ``None`` disables one.

    ``negotiation_quota`` of ``None`` means the Table 2 rule: the number of potential
    partners of the agent times the exogenous-contract horizon.
    """

    reporting_period: int = 5
    time_limit: float | None = 7200.0
    neg_time_limit: float | None = 120.0
    neg_n_steps: int = 20
    neg_step_time_limit: float | None = 10.0
    negotiation_speed: int = 21
    negotiation_quota: int | None = None
    signing_delay: int = 0
    trading_price_discount: float = 0.9
    prior_quantity: float = 50.0
    spot_lambda: float = 0.1
    spot_alpha: float = 0.9
    global_penalty: float = 0.15
    horizon_range: tuple[float, float] = (0.1, 0.4)

    def __post_init__(self) -> None:
        checks = {
            "reporting_period": self.reporting_period >= 1,
            "neg_n_steps": self.neg_n_steps >= 1,
            "negotiation_speed": self.negotiation_speed >= 1,
            "signing_delay": self.signing_delay >= 0,
            "trading_price_discount": 0.0 <= self.trading_price_discount <= 1.0,
            "prior_quantity": self.prior_quantity >= 0,
            "spot_lambda": self.spot_lambda >= 0,
            "spot_alpha": 0.0 <= self.spot_alpha <= 1.0,
            "global_penalty": self.global_penalty >= 0,
            "horizon_range": 0.0 <= self.horizon_range[0] <= self.horizon_range[1] <= 1.0,
        }
        for name, ok in checks.items():
            if not ok:
                raise ConfigError(
                    f"SimulationParams.{name} is out of range: {getattr(self, name)!r}"
                )

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (for the bulletin board settings and stored results)."""
        return asdict(self)
