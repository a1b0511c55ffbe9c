"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";

/**
 * A checkbox bound to a server setting: it shows the person's choice at once and keeps showing
 * it until the save is done and the pages have re-read the setting, so it never flickers back.
 */
export function useSettingToggle(saved: boolean, save: (next: boolean) => Promise<unknown>) {
  const queryClient = useQueryClient();
  const [wanted, setWanted] = useState<boolean | null>(null);
  const [error, setError] = useState<unknown>(null);
  const toggle = async (next: boolean) => {
    setWanted(next);
    setError(null);
    try {
      await save(next);
      await queryClient.invalidateQueries();
    } catch (failure) {
      setError(failure);
    } finally {
      setWanted(null);
    }
  };
  return { checked: wanted ?? saved, busy: wanted !== null, toggle, error };
}
