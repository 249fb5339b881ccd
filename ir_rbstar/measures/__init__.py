"""Measure declarations (names, parameters, definitions). Registration happens in :func:`register`."""
from __future__ import annotations

from ir_measures.measures import registry

from .base import RbstarMeasure
from .rankbiased import RANKBIASED, RBA, RBA_res, RBO, RBO_ext, RBO_res, RBP, RBP_res, RBR, RBR_res
from .ties import TIES, AP_TA, F1_TA, P_TA, R_TA, RBP_TA, RR_TA, nDCG_TA
from .twist import TWIST, Twist, Twist_rho, Twist_sigma
from .nrg import NRG_MEASURES, NRG, UniqueRel, RarP, TaSC
from .med import MED_MEASURES, MED_P, MED_RBP, MED_nDCG, MED_AP, MED_ERR

__all__ = ["ALL", "register", "RbstarMeasure", "RBP", "RBP_res", "RBR", "RBR_res", "RBA", "RBA_res",
           "RBO", "RBO_res", "RBO_ext", "P_TA", "R_TA", "F1_TA", "AP_TA", "RR_TA", "nDCG_TA", "RBP_TA",
           "Twist", "Twist_rho", "Twist_sigma", "NRG", "UniqueRel", "RarP", "TaSC",
           "MED_P", "MED_RBP", "MED_nDCG", "MED_AP", "MED_ERR"]

ALL = list(RANKBIASED) + list(TIES) + list(TWIST) + list(NRG_MEASURES) + list(MED_MEASURES)


def register() -> None:
    """Register every measure with ir_measures' parser (idempotent).

    ``RBP`` is also the name of ir_measures' own measure: its registry entry and ``ir_measures.RBP`` are
    left as they are (``ir_measures.parse_measure('RBP...')`` still gives ir_measures' object, served as
    before); :func:`ir_rbstar.parse` gives this package's ``RBP`` declaration.
    """
    for m in ALL:
        current = registry.get(m.NAME)
        if current is None or (isinstance(current, RbstarMeasure) and current is not m):
            registry[m.NAME] = m
